/**
 * Perfetto import end to end, over the WASM protobuf scanner: packets are read as bytes
 * arrive and track events are spooled (bounded memory, see trace-events/); at the end the
 * spool is merged per track, slices are paired and nested (the chrome-trace rules) and
 * rows are produced in batches.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import type { FrameRegistry } from "../common/frame-registry.ts";
import { deepStacksLimitation, type StackSpill, StackTrie } from "../common/stack-trie.ts";
import type { TrackLookup } from "../common/track.ts";
import { NsClock } from "../common/time-ns.ts";
import type { BeginEndCounts } from "../trace-events/begin-end-matcher.ts";
import { openNester } from "../trace-events/remote-nester.ts";
import { deepSlicesLimitation, type Nester } from "../trace-events/slice-nester.ts";
import { TraceRowWriter } from "../trace-events/trace-row-writer.ts";
import { EventSpool, type SpoolOptions } from "../trace-events/event-spool.ts";
import { spooledRows } from "../trace-events/spooled-rows.ts";
import { TrackSlicing } from "../trace-events/track-slicing.ts";
import type { AdapterLimits, NestOffload } from "../adapter.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import { PERFETTO_FORMAT } from "./debug-annotations.ts";
import { PerfettoImport } from "./perfetto-import.ts";
import { perfettoProgram } from "./trace-program.ts";
import { embeddedProfileLimitations } from "../v8-sample-tree/embedded-profiles.ts";

export interface PerfettoResult {
  /** The trace_events batches; nesting and wall_time happen while they are consumed. */
  rows: Generator<ColumnBatch>;
  /** Filled while `rows` is consumed. */
  rowCounts: { rows: number; truncatedArgs: number };
  /** Resolves, once `rows` has been consumed, when the slices are nested (see remote-nester.ts). */
  nested(): Promise<void>;
  /** The stack tries (wall_time slices, CPU samples), complete once `nested` has resolved. */
  stacks: { tries: StackTrie[]; frames: FrameRegistry; clock: NsClock; tracks: TrackLookup };
  /**
   * The rest of the evidence, complete once `nested` has resolved; `stacks` stays empty
   * (the caller writes the tries itself).
   */
  evidence(): Omit<NormalizedEvidence, "tables"> & { tables: NormalizedEvidence["tables"] };
}

export class PerfettoPipeline {
  private readonly imp: PerfettoImport;
  /** Set by `finish`: what nests the slices, here or on a thread of `nestOffload`. */
  private nester: Nester | null = null;

  /** Null once the trace is scanned (`finish`). */
  private scanner: ProtoScanner | null;
  private finished = false;

  private constructor(
    scanner: ProtoScanner,
    limits: AdapterLimits,
    spool: SpoolOptions,
    private readonly stackSpill?: StackSpill,
    private readonly nestOffload?: NestOffload,
  ) {
    this.scanner = scanner;
    this.imp = new PerfettoImport(
      limits.maxArgsBytes,
      limits.maxEvents,
      new EventSpool(spool),
      limits.maxNestingDepth,
      stackSpill,
    );
  }

  /**
   * `stackSpill`: where the stack tries spill when full (without it they grow with the trace);
   * `nestOffload`: a thread to nest the slices on (see remote-nester.ts).
   */
  static async open(
    limits: AdapterLimits,
    spool: SpoolOptions = {},
    stackSpill?: StackSpill,
    nestOffload?: NestOffload,
  ): Promise<PerfettoPipeline> {
    return new PerfettoPipeline(
      await ProtoScanner.open(perfettoProgram(), {
        format: PERFETTO_FORMAT,
        maxDepth: limits.maxNestingDepth,
      }),
      limits,
      spool,
      stackSpill,
      nestOffload,
    );
  }

  push(chunk: Uint8Array): void {
    if (this.scanner === null) throw new Error("perfetto pipeline: pushed after the scan ended");
    this.scanner.push(chunk, (b) => this.imp.onBatch(b));
  }

  /** Counter readings kept as `trace_counters` rows so far. */
  get counterRows(): number {
    return this.imp.readings?.rows ?? 0;
  }

  /**
   * The `trace_counters` batches filled so far, to be written while the scan goes on; after
   * `endScan`, the last of them.
   */
  counterBatches(): ColumnBatch[] {
    const readings = this.imp.readings;
    if (readings === null) return [];
    return this.scanner === null ? readings.finish() : readings.take();
  }

  /** Deletes spilled events (the rows generator also does when it ends). */
  dispose(): void {
    this.nester?.dispose();
    this.imp.spool.dispose();
  }

  /**
   * Ends the scan: the last packets are read, and the spool's runs written (a trace of several runs
   * then holds no run's columns). Before `finish`, whose embedded V8 profiles are assembled whole:
   * at 2 GB (the corpus's Chromium startup trace repeated) that was the worker's peak, 539 MiB,
   * with two runs' columns (~84 MB) still held beside it. `passEnded` is called once the scanner
   * is let go (StreamExtractInput.passEnded).
   */
  async endScan(passEnded?: () => void): Promise<void> {
    const imp = this.imp;
    if (this.scanner === null) throw new Error("perfetto pipeline: scan ended twice");
    this.scanner.finish((b) => imp.onBatch(b));
    // The scanners' linear memory (~107 MB laid out) can go before the rows are built: a 600 MB
    // real Chromium trace's worker held it through its whole row phase, where its peak is.
    this.scanner = null;
    imp.compressed.release();
    // Collected now, while the last run is written: held until a later checkpoint, that memory
    // and the encode thread's were the 2 GB real trace's peak (478-495 MiB, scan end).
    passEnded?.();
    await imp.spool.runsWritten();
  }

  /**
   * The trace's results once the scan has ended; `checkpoint` is called while its embedded V8
   * profiles are assembled (see StreamExtractInput.checkpoint).
   */
  finish(adapter: { name: string; version: string }, checkpoint?: () => void): PerfettoResult {
    const imp = this.imp;
    if (this.scanner !== null) throw new Error("perfetto pipeline: finished before the scan ended");
    if (this.finished) throw new Error("perfetto pipeline: finished twice");
    this.finished = true;
    imp.samples.flush();
    imp.heap.finish();
    imp.tracks.resolve();
    const clock = new NsClock(0);
    // Before the slice nester sizes its arrays by the frame count: profiles add frames.
    const cpu = new MeasureAccumulator("cpu_time");
    const cpuStacks = new StackTrie("cpu_time", this.stackSpill);
    const profiles = imp.v8Profiles.normalize(
      { frames: imp.frames, cpu, stacks: cpuStacks, clock },
      (t) => imp.tracks.pids[t] ?? null,
      checkpoint,
    );
    const wall = new MeasureAccumulator("wall_time");
    const wallStacks = new StackTrie("wall_time", this.stackSpill);
    const beginEnd: BeginEndCounts = { unmatchedBegin: 0, unmatchedEnd: 0 };
    const nester = openNester(imp.frames.size, wall, wallStacks, this.stackSpill, this.nestOffload);
    this.nester = nester;
    const rowWriter = new TraceRowWriter(imp.strings, imp.tracks, clock);
    const nameOf = (id: number): unknown => (id >= 0 ? imp.strings.get(id) : undefined);
    const slicing = new TrackSlicing(
      nester,
      beginEnd,
      nameOf,
      rowWriter,
      { spill: imp.spool.spill, events: imp.spool.pendingEvents },
      (t) => imp.ftrace.unnestable(t),
    );
    const events = imp.spool.length;
    const trackInfo = imp.tracks.allInfo();
    const lookup: TrackLookup = (t) => trackInfo[t]!;
    return {
      stacks: {
        tries: [
          wallStacks,
          cpuStacks,
          imp.samples.stacks,
          ...imp.heap.metrics.map((m) => m.stacks),
        ],
        frames: imp.frames,
        clock,
        tracks: lookup,
      },
      rows: spooledRows(imp.spool, imp.trackEndNs, slicing, rowWriter),
      nested: () => nester.settled(),
      rowCounts: rowWriter,
      evidence: () => {
        const tables = emptyTables();
        const info = imp.tracks.allInfo();
        const lookup = (t: number) => info[t]!;
        imp.frames.emit(tables.frames);
        rowWriter.emitTracks(tables.tracks, this.counterRows > 0);
        wall.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
        cpu.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
        imp.samples.measures.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
        for (const m of imp.heap.metrics)
          m.measures.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
        const slices = nester.slices;
        return {
          adapter: adapter.name,
          adapterVersion: adapter.version,
          producer: null,
          producerVersion: null,
          tables,
          limitations: [
            ...perfettoLimitations(imp, beginEnd, slices, slicing.droppedBegins),
            ...deepSlicesLimitation(nester.deepSlices),
            ...deepStacksLimitation([
              cpuStacks,
              imp.samples.stacks,
              ...imp.heap.metrics.map((m) => m.stacks),
            ]),
            ...embeddedProfileLimitations(profiles),
          ],
          summary: {
            packets: imp.packets,
            events,
            slices,
            tracks: imp.tracks.size,
            cpu_samples: imp.samples.count + profiles.attributedSamples,
            cpu_profiles: profiles.profiles,
            total_cpu_time_ns: profiles.totalNs,
            compressed_groups: imp.compressed.groups,
            atrace_marks: imp.ftrace.marks,
            heap_dumps: imp.heap.dumps,
            primary_clock: imp.domain.primary,
            metrics: [
              slices > 0 ? "wall_time" : "",
              profiles.attributedSamples > 0 ? "cpu_time" : "",
              imp.samples.count > 0 ? "samples" : "",
              ...imp.heap.metrics.filter((m) => !m.measures.isEmpty).map((m) => m.measures.metric),
            ]
              .filter(Boolean)
              .join(","),
          },
        };
      },
    };
  }
}

function perfettoLimitations(
  imp: PerfettoImport,
  beginEnd: BeginEndCounts,
  slices: number,
  droppedBegins: number,
): Limitation[] {
  const out: Limitation[] = [];
  const add = (code: string, count: number, message: string) => {
    if (count > 0) out.push({ code, message, count });
  };
  add(
    "unmatched_begin",
    beginEnd.unmatchedBegin,
    "Slice begins without an end; closed at the track's last timestamp",
  );
  add(
    "unmatched_end",
    beginEnd.unmatchedEnd,
    "Slice ends without an open slice on their track; dropped",
  );
  add(
    "missing_ts",
    imp.counts.missingTs + imp.unknownClockEvents,
    "Track events whose timestamp clock is not defined on their sequence; dropped",
  );
  add(
    "unknown_clock_conversion",
    imp.domain.unknownClocks,
    "Timestamps on a clock without a snapshot relating it to the trace clock; kept unconverted",
  );
  add(
    "args_truncated",
    imp.truncatedArgs,
    "Debug annotations longer than the per-event limit; truncated in the stored args (V8 CPU " +
      "profiles in them are read whole before that)",
  );
  add(
    "flows_not_imported",
    imp.flowEvents,
    "Track events with flow links (flow_ids, terminating_flow_ids, legacy bind ids); the " +
      "links are not imported (a JSON trace keeps them as s/f event rows)",
  );
  add(
    "unresolved_callstacks",
    imp.samples.unresolved,
    "CPU samples whose interned callstack is missing; dropped",
  );
  add(
    "unresolved_heap_callstacks",
    imp.heap.unresolved,
    "Heap profile samples whose callstack is in neither the profile packet nor the interned " +
      "data; dropped",
  );
  add(
    "heap_dump_incomplete",
    imp.heap.incomplete,
    "Heap dumps whose continuation packets never came; used only where no complete dump of " +
      "that process and heap exists",
  );
  add(
    "extra_counters_without_track",
    imp.counters.withoutTrack,
    "Extra counter values with no counter track named for them; dropped",
  );
  add(
    "async_begin_while_open",
    droppedBegins,
    "atrace S marks for a name and cookie whose slice was already open; dropped, as Trace " +
      "Processor does (the first S and the F make the slice)",
  );
  add(
    "ftrace_clock_unconvertible",
    imp.ftrace.unconvertibleMarks,
    "atrace marks on an ftrace clock with no {ftrace, boot} timestamp pair relating it to " +
      "the trace clock (or an unknown clock); dropped",
  );
  if (slices === 0)
    out.push({
      code: "no_slices",
      message: "The trace has no slices, so there is no wall time to attribute",
    });
  if (imp.heap.dumps + imp.heap.incomplete > 0)
    out.push({
      code: "heap_values_sampled",
      message:
        "heapprofd samples allocations (Poisson, at its sampling interval): sizes and counts " +
        "are estimates, and only the last dump of each process and heap is measured",
    });
  if (imp.samples.count > 0)
    out.push({
      code: "sample_counts_only",
      message: "CPU samples are counted (metric samples); the trace does not give their duration",
    });
  return out;
}
