/**
 * Chrome trace import end to end, over the WASM JSON scanner: events are spooled while
 * the JSON is scanned (in bounded memory, spilling sorted runs, see trace-events/), then
 * merged per track, paired, nested and produced as `trace_events` batches, per track in
 * time order.
 */
import type { AdapterLimits, NestOffload } from "../adapter.ts";
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { deepStacksLimitation, type StackSpill, StackTrie } from "../common/stack-trie.ts";
import { NsClock } from "../common/time-ns.ts";
import type { TrackLookup } from "../common/track.ts";
import { expectationFailed, tooLarge } from "../json-guard.ts";
import { HostStrings } from "../wasm/host-strings.ts";
import { ByteOrderMarkSkip } from "../wasm/byte-order-mark.ts";
import { TAG_ARRAY, TAG_OBJECT, sampleOfKind, type JsonBatch } from "../wasm/json-batch.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import type { BeginEndCounts } from "../trace-events/begin-end-matcher.ts";
import { EventSpool, type SpoolOptions } from "../trace-events/event-spool.ts";
import { SliceFrames } from "../trace-events/slice-frames.ts";
import { openNester } from "../trace-events/remote-nester.ts";
import { deepSlicesLimitation, type Nester } from "../trace-events/slice-nester.ts";
import { spooledRows } from "../trace-events/spooled-rows.ts";
import { TrackSlicing } from "../trace-events/track-slicing.ts";
import { TraceRowWriter } from "../trace-events/trace-row-writer.ts";
import { EmbeddedProfiles } from "./embedded-profiles.ts";
import { EventScan } from "./event-scan.ts";
import { checkEventLimit, mergePiece, type PieceTarget } from "./piece-merge.ts";
import type { ScannedPiece } from "./piece-scan.ts";
import { TraceDocument } from "./trace-document.ts";
import { traceLimitations } from "./trace-limitations.ts";
import { TRACE_FORMAT, traceProducer } from "./trace-producer.ts";
import { REC_CONTAINER, REC_EVENT, traceProgram } from "./trace-program.ts";
import { TrackRegistry } from "./tracks.ts";

export interface ChromeTraceRows {
  /** The trace_events batches; pairing, nesting and wall_time happen while they are consumed. */
  rows: Generator<ColumnBatch>;
  /**
   * Once `rows` has been consumed: the CPU profiles, the stack tries and the rest of the evidence.
   */
  complete(): Promise<ChromeTraceResult>;
}

export interface ChromeTraceResult {
  stacks: { tries: StackTrie[]; frames: FrameRegistry; clock: NsClock; tracks: TrackLookup };
  /** The evidence besides trace_events and stacks (the caller writes the tries itself). */
  evidence(): NormalizedEvidence;
}

const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: TRACE_FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: limits.maxArgsBytes,
});

export class ChromeTracePipeline {
  private scanner: JsonScanner | null;
  private readonly bom = new ByteOrderMarkSkip();
  private readonly spool: EventSpool;
  private readonly frames = new FrameRegistry();
  private readonly tracks = new TrackRegistry();
  private readonly profiles = new EmbeddedProfiles();
  private readonly scan: EventScan;
  private readonly strings: HostStrings;
  private readonly onBatch = (b: JsonBatch): void => this.batch(b);
  private readonly document = new TraceDocument();
  private readonly sliceFrames = new SliceFrames(this.frames);
  /** Whether the last piece closed a cut-off array (pieces only; a scanner here says so itself). */
  private piecesRepaired = false;

  /** Set by `finish`: what nests the slices, here or on a thread of `nestOffload`. */
  private nester: Nester | null = null;

  private constructor(
    scanner: JsonScanner | null,
    private readonly limits: AdapterLimits,
    spool: SpoolOptions,
    private readonly stackSpill?: StackSpill,
    private readonly nestOffload?: NestOffload,
  ) {
    this.scanner = scanner;
    this.strings = scanner?.strings ?? new HostStrings();
    this.spool = new EventSpool(spool);
    this.scan = new EventScan(
      this.spool,
      this.strings,
      this.tracks,
      this.sliceFrames,
      this.profiles,
      limits.maxArgsBytes,
    );
  }

  /**
   * `stackSpill`: where the wall-time stack trie spills when full (without it, it grows with the
   * trace); `nestOffload`: a thread to nest the slices on (see remote-nester.ts).
   */
  static async open(
    limits: AdapterLimits,
    spool: SpoolOptions = {},
    stackSpill?: StackSpill,
    nestOffload?: NestOffload,
  ): Promise<ChromeTracePipeline> {
    return new ChromeTracePipeline(
      await JsonScanner.open(traceProgram(), scanOptions(limits)),
      limits,
      spool,
      stackSpill,
      nestOffload,
    );
  }

  /**
   * A pipeline fed by pieces scanned elsewhere (`mergePiece`, in document order) instead of `push`.
   */
  static forPieces(
    limits: AdapterLimits,
    spool: SpoolOptions = {},
    stackSpill?: StackSpill,
    nestOffload?: NestOffload,
  ): ChromeTracePipeline {
    return new ChromeTracePipeline(null, limits, spool, stackSpill, nestOffload);
  }

  /** Adds the next piece of the document (see piece-merge.ts). */
  mergePiece(piece: ScannedPiece): void {
    mergePiece(this.pieceTarget(), piece);
    if (piece.document) this.piecesRepaired = piece.repaired;
  }

  /**
   * Raises the event limit's error if `events` more would exceed it (before a failed piece's own
   * error, as a sequential scan would).
   */
  checkEventLimit(events: number): void {
    checkEventLimit(this.pieceTarget(), events);
  }

  private pieceTarget(): PieceTarget {
    const { spool, strings, tracks, sliceFrames, profiles, scan, document } = this;
    return {
      spool,
      strings,
      tracks,
      sliceFrames,
      profiles,
      scan,
      document,
      maxEvents: this.limits.maxEvents,
    };
  }

  push(chunk: Uint8Array): void {
    const bytes = this.bom.strip(chunk);
    if (bytes.length > 0) this.scanner!.push(bytes, this.onBatch);
  }

  /** Deletes spilled events (the rows generator also does when it ends); stops nesting. */
  dispose(): void {
    this.nester?.dispose();
    this.spool.dispose();
  }

  /** Waits for spool runs written on another thread; the rows need them (after `finish`). */
  runsWritten(): Promise<void> {
    return this.spool.runsWritten();
  }

  private batch(b: JsonBatch): void {
    for (let r = 0; r < b.count; r++) {
      if (b.type(r) === REC_EVENT) {
        this.scan.event(b, r);
        if (this.spool.length > this.limits.maxEvents)
          throw tooLarge(TRACE_FORMAT, "events", this.spool.length, this.limits.maxEvents);
        continue;
      }
      if (b.type(r) === REC_CONTAINER) this.document.observe(b, r);
    }
  }

  /** Ends the scan and checks the trace's shape; the rows come as the result is consumed. */
  finish(adapter: { name: string; version: string }, displayName: string): ChromeTraceRows {
    let repaired = this.piecesRepaired;
    if (this.scanner) {
      const rest = this.bom.rest();
      if (rest.length > 0) this.scanner.push(rest, this.onBatch);
      repaired = this.scanner.finish(true, this.onBatch).repaired;
      // its linear memory can go before the merge pass; its strings stay with the scan
      this.scanner = null;
    }
    const { limits, spool, frames, tracks, profiles, scan } = this;
    const { topKind, traceEventsKind, stackSamples, container } = this.document;
    // The scanner has validated the JSON itself; these are the Trace Event Format's own rules.
    if (topKind !== TAG_ARRAY && topKind !== TAG_OBJECT)
      throw expectationFailed(
        TRACE_FORMAT,
        "the top-level value",
        "an array or an object",
        sampleOfKind(topKind),
      );
    if (topKind === TAG_OBJECT && traceEventsKind !== TAG_ARRAY)
      throw expectationFailed(
        TRACE_FORMAT,
        "traceEvents",
        "an array",
        sampleOfKind(traceEventsKind),
      );
    if (profiles.sampleCount > limits.maxEvents)
      throw tooLarge(TRACE_FORMAT, "CPU profile samples", profiles.sampleCount, limits.maxEvents);

    const strings = this.strings;
    const clock = scan.clock ?? new NsClock(0);
    const wall = new MeasureAccumulator("wall_time");
    const wallStacks = new StackTrie("wall_time", this.stackSpill);
    const beginEnd: BeginEndCounts = { unmatchedBegin: 0, unmatchedEnd: 0 };
    const nester = openNester(frames.size, wall, wallStacks, this.stackSpill, this.nestOffload);
    this.nester = nester;
    const rowWriter = new TraceRowWriter(strings, tracks, clock);
    const nameOf = (id: number): unknown => (id >= 0 ? strings.get(id) : undefined);
    const slicing = new TrackSlicing(nester, beginEnd, nameOf, rowWriter, {
      spill: spool.spill,
      events: spool.pendingEvents,
    });
    return {
      rows: spooledRows(spool, scan.trackEndNs, slicing, rowWriter),
      complete: async () => {
        await nester.settled();
        const cpu = new MeasureAccumulator("cpu_time");
        const cpuStacks = new StackTrie("cpu_time");
        const profileStats = profiles.normalize({ frames, cpu, stacks: cpuStacks, clock });
        const trackInfo = tracks.allInfo();
        const lookup: TrackLookup = (track) => trackInfo[track]!;
        const slices = nester.slices;
        const { producer, version } = traceProducer(container, displayName);
        return {
          stacks: { tries: [wallStacks, cpuStacks], frames, clock, tracks: lookup },
          evidence: () => {
            const tables = emptyTables();
            frames.emit(tables.frames);
            rowWriter.emitTracks(tables.tracks);
            wall.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
            cpu.emit(tables.frame_measurements, tables.call_edges, frames, lookup);
            return {
              adapter: adapter.name,
              adapterVersion: adapter.version,
              producer,
              producerVersion: version,
              tables,
              limitations: [
                ...traceLimitations({
                  scan: scan.counts,
                  beginEnd,
                  profiles: profileStats,
                  slices,
                  truncatedArgs: rowWriter.truncatedArgs,
                  repairedTruncatedArray: repaired,
                  ignoredStackSamples: stackSamples,
                }),
                ...deepSlicesLimitation(nester.deepSlices),
                ...deepStacksLimitation([cpuStacks]),
              ],
              summary: {
                events: spool.length,
                trace_event_rows: rowWriter.rows,
                slices,
                tracks: tracks.size,
                cpu_profiles: profileStats.profiles,
                cpu_samples: profileStats.attributedSamples,
                total_cpu_time_ns: profileStats.totalNs,
                metrics: [
                  slices > 0 ? "wall_time" : "",
                  profileStats.attributedSamples > 0 ? "cpu_time" : "",
                ]
                  .filter(Boolean)
                  .join(","),
              },
            };
          },
        };
      },
    };
  }
}
