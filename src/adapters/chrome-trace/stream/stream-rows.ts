/**
 * Writes `trace_events` from the streamed columns in batches, in input order: the rows
 * trace-event-rows.ts writes from event objects, built as column vectors (string ids and
 * args text copied as UTF-8 bytes), so no per-row JS values are created.
 */
import type { EvidenceSink } from "../../adapter.ts";
import type { ColumnBatch } from "../../../domain/column-batch.ts";
import { Int32Builder, Int64Builder, Utf8Builder } from "../../common/column-builders.ts";
import type { NsClock } from "../../common/time-ns.ts";
import { FLAG_ARGS_TRUNCATED, flagsText } from "../event-flags.ts";
import { KIND_BEGIN, KIND_COMPLETE, KIND_SKIPPED, UNNAMED } from "../event-scan.ts";
import type { TrackInfo } from "../../common/track.ts";
import type { TraceColumns } from "./event-columns.ts";

export const ROWS_PER_BATCH = 65536;
const encoder = new TextEncoder();
const UNNAMED_BYTES = encoder.encode(UNNAMED);

/** UTF-8 bytes of the string ids in the columns. */
export interface StringBytes {
  bytes(id: number): Uint8Array;
}

/** The track facts rows need (TrackRegistry for Chrome traces, PerfettoTracks for Perfetto). */
export interface TrackTable {
  readonly pids: readonly (string | null)[];
  readonly tids: readonly (string | null)[];
  allInfo(): TrackInfo[];
}

interface TrackBytes {
  id: Uint8Array;
  pid: Uint8Array | null;
  tid: Uint8Array | null;
  processName: Uint8Array | null;
  threadName: Uint8Array | null;
}

const utf8OrNull = (value: string | null): Uint8Array | null => (value === null ? null : encoder.encode(value));

export async function writeStreamRows(cols: TraceColumns, strings: StringBytes, tracks: TrackTable, clock: NsClock, sink: EvidenceSink): Promise<{ rows: number; truncatedArgs: number }> {
  const counts = { rows: 0, truncatedArgs: 0 };
  for (const batch of traceRowBatches(cols, strings, tracks, clock, counts)) await sink.writeBatch(batch);
  return counts;
}

/** The trace_events batches, in input order; `counts` is filled as they are produced. */
export function* traceRowBatches(cols: TraceColumns, strings: StringBytes, tracks: TrackTable, clock: NsClock, counts: { rows: number; truncatedArgs: number }): Generator<ColumnBatch> {
  const trackBytes: TrackBytes[] = tracks.allInfo().map((info, t) => ({
    id: encoder.encode(info.id ?? "-"),
    pid: utf8OrNull(tracks.pids[t]!),
    tid: utf8OrNull(tracks.tids[t]!),
    processName: utf8OrNull(info.processName),
    threadName: utf8OrNull(info.threadName),
  }));
  const flagBytes = Array.from({ length: 16 }, (_, mask) => utf8OrNull(flagsText(mask)));
  // ts_ns = baseNs + relNs exactly, with baseNs split into 32-bit halves (it may exceed 2^53).
  const baseNs = BigInt(clock.baseUs) * 1000n;
  const baseHigh = Number(baseNs >> 32n);
  const baseLow = Number(BigInt.asUintN(32, baseNs));
  const kind = cols.kind.array;
  const n = cols.length;
  let b = new RowBatch();
  for (let i = 0; i < n; i++) {
    const k = kind[i]!;
    if (k === KIND_SKIPPED) continue;
    const row = b.length;
    const track = trackBytes[cols.track.array[i]!]!;
    b.eventIndex.set(row, i);
    b.trackId.set(row, track.id);
    setNullable(b.pid, row, track.pid);
    setNullable(b.tid, row, track.tid);
    setNullable(b.processName, row, track.processName);
    setNullable(b.threadName, row, track.threadName);
    const name = cols.name.array[i]!;
    b.name.set(row, name >= 0 ? strings.bytes(name) : UNNAMED_BYTES);
    const cat = cols.cat.array[i]!;
    if (cat >= 0) b.category.set(row, strings.bytes(cat));
    else b.category.setNull(row);
    b.phase.set(row, strings.bytes(cols.ph.array[i]!));
    b.ts.setSum(row, baseHigh, baseLow, cols.startNs.array[i]!);
    if (k === KIND_COMPLETE || k === KIND_BEGIN) b.dur.set(row, cols.durNs.array[i]!);
    else b.dur.setNull(row);
    b.depth.set(row, cols.depth[i]!);
    const args = cols.argsRef.array[i]!;
    if (args >= 0) b.args.set(row, cols.args.get(args));
    else b.args.setNull(row);
    const mask = cols.flags.array[i]!;
    if ((mask & FLAG_ARGS_TRUNCATED) !== 0) counts.truncatedArgs++;
    setNullable(b.flags, row, flagBytes[mask]!);
    b.length++;
    counts.rows++;
    if (b.length === ROWS_PER_BATCH) {
      yield b.build();
      b = new RowBatch();
    }
  }
  if (b.length > 0 || counts.rows === 0) yield b.build();
}

function setNullable(builder: Utf8Builder, row: number, bytes: Uint8Array | null): void {
  if (bytes === null) builder.setNull(row);
  else builder.set(row, bytes);
}

class RowBatch {
  length = 0;
  readonly eventIndex = new Int64Builder(ROWS_PER_BATCH);
  readonly trackId = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 8);
  readonly pid = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 4);
  readonly tid = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 4);
  readonly processName = new Utf8Builder(ROWS_PER_BATCH, 1024);
  readonly threadName = new Utf8Builder(ROWS_PER_BATCH, 1024);
  readonly name = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 24);
  readonly category = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 8);
  readonly phase = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH);
  readonly ts = new Int64Builder(ROWS_PER_BATCH);
  readonly dur = new Int64Builder(ROWS_PER_BATCH);
  readonly depth = new Int32Builder(ROWS_PER_BATCH);
  readonly args = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 16);
  readonly flags = new Utf8Builder(ROWS_PER_BATCH, 1024);

  build(): ColumnBatch {
    const n = this.length;
    return {
      table: "trace_events" as const,
      length: n,
      columns: {
        event_index: this.eventIndex.build(n),
        track_id: this.trackId.build(n),
        pid: this.pid.build(n),
        tid: this.tid.build(n),
        process_name: this.processName.build(n),
        thread_name: this.threadName.build(n),
        name: this.name.build(n),
        category: this.category.build(n),
        phase: this.phase.build(n),
        ts_ns: this.ts.build(n),
        dur_ns: this.dur.build(n),
        depth: this.depth.build(n),
        args_json: this.args.build(n),
        flags: this.flags.build(n),
      },
    };
  }
}
