/**
 * Builds `trace_events` rows in column batches: one row per kept event (an E folded into
 * its B adds none), built as column vectors, so no per-row JS values are created. The
 * repeated strings (track, name, category, phase, flags) are indices into each batch's
 * dictionary, keyed by their string ids; args text is copied as UTF-8 bytes. Rows come in
 * the order they are added. A track's identity and names are written once, as `tracks`
 * rows (`emitTracks`).
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import {
  DictUtf8Builder,
  Int32Builder,
  Int64Builder,
  type KeyBytes,
  Utf8Builder,
} from "../common/column-builders.ts";
import type { NsClock } from "../common/time-ns.ts";
import { FLAG_ARGS_TRUNCATED, flagsText } from "./event-flags.ts";
import { KIND_BEGIN, KIND_COMPLETE, UNNAMED } from "./event-kinds.ts";
import type { TrackInfo } from "../common/track.ts";
import type { EventCursor } from "./run-codec.ts";

export const ROWS_PER_BATCH = 16384;
/**
 * Args bytes at which a batch closes before ROWS_PER_BATCH rows: half a Parquet part, as stack
 * batches (stack-chunks.ts). Without it, events of 1 KiB of args made batches of 16 MiB, two
 * parts' worth (tests/adapters/run-codec.test.ts), and the args builder and the encoder keep the
 * largest size they were given.
 */
export const BATCH_ARGS_BYTES = 4 << 20;
const encoder = new TextEncoder();
const UNNAMED_BYTES = encoder.encode(UNNAMED);

/** The track facts rows need (TrackRegistry for Chrome traces, PerfettoTracks for Perfetto). */
export interface TrackTable {
  readonly pids: readonly (string | null)[];
  readonly tids: readonly (string | null)[];
  allInfo(): TrackInfo[];
}

/**
 * Events' row values, one column per field (PendingEvents holds a track's): string fields as
 * ids (-1: none), durations and thread times in ns (NaN: none), args as `argsLen[k]` bytes
 * of `argsData` from `argsAt[k]` (argsLen -1: no args). Rows are read from the columns as
 * they are, with no object per row.
 */
export interface HeldEvents {
  readonly seq: Float64Array;
  readonly kind: Uint8Array;
  readonly flags: Uint8Array;
  readonly start: Float64Array;
  readonly dur: Float64Array;
  /** Thread (CPU) time of a slice. */
  readonly threadNs: Float64Array;
  readonly depth: Int32Array;
  readonly name: Int32Array;
  readonly cat: Int32Array;
  readonly ph: Int32Array;
  readonly argsAt: Float64Array;
  readonly argsLen: Int32Array;
  readonly argsData: Uint8Array;
}

const utf8OrNull = (value: string | null): Uint8Array | null =>
  value === null ? null : encoder.encode(value);

export class TraceRowWriter {
  rows = 0;
  truncatedArgs = 0;
  /** Whether a flags mask has any text (a mask without is a null cell). */
  private readonly flagged: boolean[];
  private readonly baseHigh: number;
  private readonly baseLow: number;
  /** Reused from batch to batch: `build` copies the rows out. */
  private readonly batch: RowBatch;
  private readonly done: ColumnBatch[] = [];

  constructor(
    /** UTF-8 bytes of the string ids in the columns. */
    strings: KeyBytes,
    private readonly tracks: TrackTable,
    clock: NsClock,
  ) {
    const trackIds = tracks.allInfo().map((info) => encoder.encode(trackIdOf(info)));
    const flagBytes = Array.from({ length: 16 }, (_, mask) => utf8OrNull(flagsText(mask)));
    this.flagged = flagBytes.map((bytes) => bytes !== null);
    this.batch = new RowBatch({
      // Key 0 is an unnamed event; key id + 1 the string id's value.
      names: { bytes: (key) => (key === 0 ? UNNAMED_BYTES : strings.bytes(key - 1)) },
      strings,
      tracks: { bytes: (track) => trackIds[track]! },
      flags: { bytes: (mask) => flagBytes[mask]! },
    });
    // ts_ns = baseNs + relNs exactly, with baseNs split into 32-bit halves (it may exceed 2^53).
    const baseNs = BigInt(clock.baseUs) * 1000n;
    this.baseHigh = Number(baseNs >> 32n);
    this.baseLow = Number(BigInt.asUintN(32, baseNs));
  }

  /** Event `k` of `held`, an event of track `track`, as the next row. */
  add(held: HeldEvents, k: number, track: number): void {
    const b = this.batch;
    const row = b.length;
    const kind = held.kind[k]!;
    this.identify(b, row, held.seq[k]!, track, held.name[k]!, held.cat[k]!, held.ph[k]!);
    b.ts.setSum(row, this.baseHigh, this.baseLow, held.start[k]!);
    const slice = kind === KIND_COMPLETE || kind === KIND_BEGIN;
    if (slice) b.dur.set(row, held.dur[k]!);
    else b.dur.setNull(row);
    const threadNs = held.threadNs[k]!;
    // Finite: x - x is 0 only for a finite x. `Number.isFinite` here made JSC throw this
    // function's optimized code away and recompile it five times per large import.
    if (slice && threadNs - threadNs === 0) b.threadDur.set(row, threadNs);
    else b.threadDur.setNull(row);
    b.depth.set(row, held.depth[k]!);
    const argsLen = held.argsLen[k]!;
    if (argsLen >= 0) b.args.setRange(row, held.argsData, held.argsAt[k]!, argsLen);
    else b.args.setNull(row);
    this.close(b, row, held.flags[k]!);
  }

  /**
   * The cursor's event, a plain one (no duration, thread time or depth: not a slice), of track
   * `track`, as the next row: read where the merge left it, not copied into held events first.
   */
  addPlain(c: EventCursor, track: number): void {
    const v = c.v;
    const i = c.i;
    const b = this.batch;
    const row = b.length;
    this.identify(b, row, v.seq[i]!, track, v.name[i]!, v.cat[i]!, v.ph[i]!);
    b.ts.setSum(row, this.baseHigh, this.baseLow, v.start[i]!);
    b.dur.setNull(row);
    b.threadDur.setNull(row);
    b.depth.set(row, 0);
    const argsLen = v.argsLen[i]!;
    if (argsLen >= 0) b.args.setRange(row, v.args, c.argsAt, argsLen);
    else b.args.setNull(row);
    this.close(b, row, v.flags[i]!);
  }

  /** A row's event index, track, name, category and phase. */
  private identify(
    b: RowBatch,
    row: number,
    seq: number,
    track: number,
    name: number,
    cat: number,
    ph: number,
  ): void {
    b.eventIndex.set(row, seq);
    b.trackId.set(row, track);
    b.name.set(row, name >= 0 ? name + 1 : 0);
    if (cat >= 0) b.category.set(row, cat);
    else b.category.setNull(row);
    b.phase.set(row, ph);
  }

  /** A row's flags; then the row counts, and a full batch is built. */
  private close(b: RowBatch, row: number, flags: number): void {
    if ((flags & FLAG_ARGS_TRUNCATED) !== 0) this.truncatedArgs++;
    if (this.flagged[flags]) b.flags.set(row, flags);
    else b.flags.setNull(row);
    b.length++;
    this.rows++;
    if (b.length === ROWS_PER_BATCH || b.args.bytes >= BATCH_ARGS_BYTES) {
      this.done.push(b.build());
      b.reset();
    }
  }

  /**
   * One `tracks` row per track of the trace (its events name it by track_id); `indexed`: with its
   * track_index, by which trace_counters rows name it.
   */
  emitTracks(out: TableBuffer, indexed = false): void {
    this.tracks.allInfo().forEach((info, t) => {
      out.append({
        track_id: trackIdOf(info),
        pid: this.tracks.pids[t]!,
        tid: this.tracks.tids[t]!,
        process_name: info.processName,
        thread_name: info.threadName,
        track_index: indexed ? t : null,
      });
    });
  }

  /** Whether full batches are waiting to be taken. */
  get ready(): boolean {
    return this.done.length > 0;
  }

  /** Full batches built so far (taken: the writer forgets them). */
  take(): ColumnBatch[] {
    return this.done.splice(0);
  }

  /** The last batches; a trace without rows still gets one empty batch. */
  finish(): ColumnBatch[] {
    if (this.batch.length > 0 || this.rows === 0) this.done.push(this.batch.build());
    this.batch.reset();
    return this.take();
  }
}

const trackIdOf = (info: TrackInfo): string => info.id ?? "-";

/** The bytes behind the keys of the dictionary columns. */
interface RowKeys {
  /** 0: unnamed; id + 1: a string id. */
  names: KeyBytes;
  /** String ids (category, phase). */
  strings: KeyBytes;
  /** Track indices. */
  tracks: KeyBytes;
  /** Flag masks with text. */
  flags: KeyBytes;
}

class RowBatch {
  length = 0;
  readonly eventIndex = new Int64Builder(ROWS_PER_BATCH);
  readonly trackId: DictUtf8Builder;
  readonly name: DictUtf8Builder;
  readonly category: DictUtf8Builder;
  readonly phase: DictUtf8Builder;
  readonly ts = new Int64Builder(ROWS_PER_BATCH);
  readonly dur = new Int64Builder(ROWS_PER_BATCH);
  readonly depth = new Int32Builder(ROWS_PER_BATCH);
  readonly args = new Utf8Builder(ROWS_PER_BATCH, ROWS_PER_BATCH * 16);
  readonly flags: DictUtf8Builder;
  readonly threadDur = new Int64Builder(ROWS_PER_BATCH);

  private readonly builders: { reset(): void }[];

  constructor(keys: RowKeys) {
    this.trackId = new DictUtf8Builder(ROWS_PER_BATCH, keys.tracks);
    this.name = new DictUtf8Builder(ROWS_PER_BATCH, keys.names);
    this.category = new DictUtf8Builder(ROWS_PER_BATCH, keys.strings);
    this.phase = new DictUtf8Builder(ROWS_PER_BATCH, keys.strings);
    this.flags = new DictUtf8Builder(ROWS_PER_BATCH, keys.flags);
    this.builders = [
      this.eventIndex,
      this.trackId,
      this.name,
      this.category,
      this.phase,
      this.ts,
      this.dur,
      this.depth,
      this.args,
      this.flags,
      this.threadDur,
    ];
  }

  reset(): void {
    this.length = 0;
    for (const builder of this.builders) builder.reset();
  }

  build(): ColumnBatch {
    const n = this.length;
    return {
      table: "trace_events" as const,
      length: n,
      columns: {
        event_index: this.eventIndex.build(n),
        track_id: this.trackId.build(n),
        name: this.name.build(n),
        category: this.category.build(n),
        phase: this.phase.build(n),
        ts_ns: this.ts.build(n),
        dur_ns: this.dur.build(n),
        depth: this.depth.build(n),
        args_json: this.args.build(n),
        flags: this.flags.build(n),
        thread_dur_ns: this.threadDur.build(n),
      },
    };
  }
}
