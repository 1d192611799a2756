/**
 * Perfetto import end to end, over the WASM protobuf scanner: packets are read as bytes
 * arrive; at the end slices are paired and nested per track (the chrome-trace passes)
 * and rows are produced in batches. Synchronous at its core so the adapter's whole-payload
 * `extract` and its streaming `extractStream` share every line.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { StackTrie } from "../common/stack-trie.ts";
import { NsClock } from "../common/time-ns.ts";
import { matchBeginEnd, type BeginEndCounts } from "../chrome-trace/begin-end.ts";
import type { ScannedTrace } from "../chrome-trace/event-scan.ts";
import { nestingScratch, nestTrackSlices } from "../chrome-trace/slice-nesting.ts";
import { traceRowBatches } from "../chrome-trace/stream/stream-rows.ts";
import type { AdapterLimits } from "../adapter.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import { PERFETTO_FORMAT } from "./debug-annotations.ts";
import { PerfettoImport } from "./perfetto-import.ts";
import { perfettoProgram } from "./trace-program.ts";

export interface PerfettoResult {
  rows: Generator<ColumnBatch>;
  /** Filled while `rows` is consumed. */
  rowCounts: { rows: number; truncatedArgs: number };
  evidence: Omit<NormalizedEvidence, "tables"> & { tables: NormalizedEvidence["tables"] };
}

export class PerfettoPipeline {
  private readonly imp: PerfettoImport;
  private constructor(private readonly scanner: ProtoScanner, private readonly limits: AdapterLimits) {
    this.imp = new PerfettoImport(scanner.strings, limits.maxArgsBytes, limits.maxEvents);
  }

  static async open(limits: AdapterLimits): Promise<PerfettoPipeline> {
    return new PerfettoPipeline(await ProtoScanner.open(perfettoProgram(), { format: PERFETTO_FORMAT, maxDepth: limits.maxNestingDepth }), limits);
  }

  static openSync(limits: AdapterLimits): PerfettoPipeline {
    return new PerfettoPipeline(ProtoScanner.openSync(perfettoProgram(), { format: PERFETTO_FORMAT, maxDepth: limits.maxNestingDepth }), limits);
  }

  push(chunk: Uint8Array): void {
    this.scanner.push(chunk, (b) => this.imp.onBatch(b));
  }

  finish(adapter: { name: string; version: string }): PerfettoResult {
    const imp = this.imp;
    this.scanner.finish((b) => imp.onBatch(b));
    imp.tracks.resolve();
    const cols = imp.cols;
    const scanned: ScannedTrace = {
      events: [], kind: cols.kind.array, track: cols.track.array, startNs: cols.startNs.array, durNs: cols.durNs.array, frame: cols.frame.array,
      flags: cols.flags.array, depth: new Int32Array(cols.length), slicesByTrack: imp.slicesByTrack, trackEndNs: imp.trackEndNs, clock: new NsClock(0), counts: imp.counts,
    };
    const nameOf = (i: number): unknown => (cols.name.array[i]! >= 0 ? imp.strings.get(cols.name.array[i]!) : undefined);
    const wall = new MeasureAccumulator("wall_time");
    const wallStacks = new StackTrie("wall_time");
    const beginEnd: BeginEndCounts = { unmatchedBegin: 0, unmatchedEnd: 0 };
    const scratch = nestingScratch(imp.frames.size);
    let slices = 0;
    for (let t = 0; t < imp.slicesByTrack.length; t++) {
      const trackSlices = imp.slicesByTrack[t]!;
      if (trackSlices.length === 0) continue;
      matchBeginEnd(scanned, trackSlices, imp.trackEndNs[t]!, beginEnd, nameOf);
      slices += nestTrackSlices(scanned, trackSlices, t, wall, wallStacks, scratch);
    }
    cols.depth = scanned.depth;
    const tables = emptyTables();
    const info = imp.tracks.allInfo();
    const lookup = (t: number) => info[t]!;
    const clock = new NsClock(0);
    imp.frames.emit(tables.frames);
    wall.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
    imp.samples.measures.emit(tables.frame_measurements, tables.call_edges, imp.frames, lookup);
    wallStacks.emit(tables.stacks, imp.frames, clock, lookup);
    imp.samples.stacks.emit(tables.stacks, imp.frames, clock, lookup);
    const rowCounts = { rows: 0, truncatedArgs: 0 };
    const limitations = perfettoLimitations(imp, beginEnd, slices);
    return {
      rows: traceRowBatches(cols, imp.strings, imp.tracks, clock, rowCounts),
      rowCounts,
      evidence: {
        adapter: adapter.name, adapterVersion: adapter.version, producer: null, producerVersion: null, tables, limitations,
        summary: {
          packets: imp.packets, events: cols.length, slices, tracks: imp.tracks.size, cpu_samples: imp.samples.count,
          primary_clock: imp.domain.primary, metrics: [slices > 0 ? "wall_time" : "", imp.samples.count > 0 ? "samples" : ""].filter(Boolean).join(","),
        },
      },
    };
  }
}

function perfettoLimitations(imp: PerfettoImport, beginEnd: BeginEndCounts, slices: number): Limitation[] {
  const out: Limitation[] = [];
  const add = (code: string, count: number, message: string) => {
    if (count > 0) out.push({ code, message, count });
  };
  add("unmatched_begin", beginEnd.unmatchedBegin, "Slice begins without an end; closed at the track's last timestamp");
  add("unmatched_end", beginEnd.unmatchedEnd, "Slice ends without an open slice on their track; dropped");
  add("missing_ts", imp.counts.missingTs + imp.unknownClockEvents, "Track events whose timestamp clock is not defined on their sequence; dropped");
  add("unknown_clock_conversion", imp.domain.unknownClocks, "Timestamps on a clock without a snapshot relating it to the trace clock; kept unconverted");
  add("args_truncated", imp.truncatedArgs, "Debug annotations longer than the per-event limit; truncated");
  add("unresolved_callstacks", imp.samples.unresolved, "CPU samples whose interned callstack is missing; dropped");
  if (slices === 0) out.push({ code: "no_slices", message: "The trace has no slices, so there is no wall time to attribute" });
  if (imp.samples.count > 0) out.push({ code: "sample_counts_only", message: "CPU samples are counted (metric samples); the trace does not give their duration" });
  return out;
}
