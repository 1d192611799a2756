/**
 * Writes stack tries through the sink as `stacks` column batches: a trace with millions
 * of distinct stacks never holds its `stacks` table as JS rows. Rows are built straight
 * into column builders (track ids copied as cached UTF-8 bytes, the stack id hashed from a
 * key assembled in one reused buffer), which took a 200 MB trace's 522K stacks from 2.3 s as
 * TableBuffer rows to a fraction of that. A row's frame ids are indices into the batch's
 * dictionary of them: a path repeats a few ids over and over (the Chromium startup Perfetto trace
 * repeated to 100 MB: 21K stacks, 2.7M path items, 216 frames), and copying each id's bytes was
 * ~0.3 s of that import's parser thread and 62 MB for the encode thread to compress.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { FRAME_METRICS, type FrameMetric } from "../../domain/evidence-schema.ts";
import { STACK_ID_BYTES, stackIdBytesOfKey } from "../../domain/frame-id.ts";
import type { EvidenceSink } from "../adapter.ts";
import {
  DictUtf8Builder,
  Int64Builder,
  ListDictUtf8Builder,
  Utf8Builder,
} from "./column-builders.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import { copyBytes } from "./growable.ts";
import type { StackRow } from "./stack-runs.ts";
import type { StackTrie } from "./stack-trie.ts";
import type { NsClock } from "./time-ns.ts";
import type { TrackLookup } from "./track.ts";

const STACK_ROWS_PER_BATCH = 16384;
/**
 * Bytes of a batch's columns (frame ids, ids, numbers and their offsets) that close it before
 * STACK_ROWS_PER_BATCH rows: a row lists its whole path, so deep stacks would make a batch of rows
 * times depth frames. Half a Parquet part's budget (BYTES_PER_PART in workers/table-parts.ts): a
 * batch larger than a part is cut in two there, and the cut copies every column on both sides
 * (8 cuts of ~9 MB batches were ~0.23 s of a 40 MB real Chromium trace's parser thread).
 */
export const STACK_BATCH_BYTES = 4 << 20;
const encoder = new TextEncoder();

export async function writeStackChunks(
  sink: EvidenceSink,
  tries: readonly StackTrie[],
  frames: FrameRegistry,
  clock: NsClock,
  tracks: TrackLookup,
  rowsPerBatch = STACK_ROWS_PER_BATCH,
  batchBytes = STACK_BATCH_BYTES,
): Promise<void> {
  const writer = new StackBatchWriter(frames, clock, tracks, rowsPerBatch, batchBytes);
  for (const trie of tries) {
    // A trie's own metric, then its twin's, if it has one.
    for (const metric of trie.metrics) {
      writer.metric = metric;
      for (const row of trie.stackRows(metric !== trie.metric)) {
        const full = writer.add(row);
        if (full) await sink.writeBatch(full);
      }
    }
  }
  const last = writer.finish();
  if (last) await sink.writeBatch(last);
  await sink.endTable?.("stacks");
}

class StackBatchWriter {
  metric: FrameMetric = "cpu_time";
  private metricBytes = new Uint8Array(0);
  private metricOf = "";
  private readonly frameIdBytes: (Uint8Array | undefined)[] = [];
  private readonly trackIdBytes: (Uint8Array | null | undefined)[] = [];
  private key = new Uint8Array(4096);
  private keyViews: Uint8Array[] = [];
  /**
   * The last row's path, and per depth the ends of its prefix in `key` and in `pathData` (its
   * frame ids one after another): a row's first frames are mostly its predecessor's (a trie
   * hands out a parent before its children), so only what differs is written again.
   */
  private lastPath = new Int32Array(64);
  private lastDepth = 0;
  private keyEnds = new Int32Array(64);
  private readonly idBytes = new Uint8Array(STACK_ID_BYTES);
  private readonly baseHigh: number;
  private readonly baseLow: number;
  private length = 0;
  /** Bytes of the batch's columns so far, as the part writer counts them. */
  private bytes = 0;
  private readonly stackId = new Utf8Builder(STACK_ROWS_PER_BATCH, STACK_ROWS_PER_BATCH * 24);
  // The metric, the leaf frame and the track repeat from row to row: each is an index into its
  // batch's dictionary (a few distinct values), not a copy of its bytes per row.
  private readonly metricColumn = new DictUtf8Builder(STACK_ROWS_PER_BATCH, {
    bytes: (metric) => encoder.encode(FRAME_METRICS[metric]!),
  });
  /** The metric's index in FRAME_METRICS: its key in the metric column's dictionary. */
  private metricKey = 0;
  private readonly frameIds = new ListDictUtf8Builder(STACK_ROWS_PER_BATCH, {
    bytes: (frame) => this.frameId(frame),
  });
  private readonly leaf = new DictUtf8Builder(STACK_ROWS_PER_BATCH, {
    bytes: (frame) => this.frameId(frame),
  });
  private readonly count = new Int64Builder(STACK_ROWS_PER_BATCH);
  private readonly duration = new Int64Builder(STACK_ROWS_PER_BATCH);
  private readonly firstTs = new Int64Builder(STACK_ROWS_PER_BATCH);
  private readonly track = new DictUtf8Builder(STACK_ROWS_PER_BATCH, {
    bytes: (track) => this.trackId(track)!,
  });

  constructor(
    private readonly frames: FrameRegistry,
    clock: NsClock,
    private readonly tracks: TrackLookup,
    private readonly rowsPerBatch: number,
    private readonly batchBytes: number,
  ) {
    // first_ts_ns = baseNs + relNs exactly, with baseNs split into 32-bit halves (it may exceed
    // 2^53).
    const baseNs = BigInt(clock.baseUs) * 1000n;
    this.baseHigh = Number(baseNs >> 32n);
    this.baseLow = Number(BigInt.asUintN(32, baseNs));
  }

  /** Appends a stack; returns the batch when it filled. */
  add(row: StackRow): ColumnBatch | null {
    if (this.metricOf !== this.metric) {
      this.metricOf = this.metric;
      this.metricBytes = encoder.encode(this.metric);
      this.metricKey = FRAME_METRICS.indexOf(this.metric);
      // Key: metric, NUL, frame ids joined by U+0001 (frame-id.ts stackId).
      this.putByte(0, this.put(this.metricBytes, 0));
      this.lastDepth = 0;
    }
    const r = this.length;
    const path = row.path;
    const depth = path.length;
    if (depth > this.lastPath.length) this.growDepth(depth);
    const last = this.lastPath;
    const shared = Math.min(depth, this.lastDepth);
    let same = 0;
    while (same < shared && last[same] === path[same]) same++;
    let used = same > 0 ? this.keyEnds[same - 1]! : this.metricBytes.length + 1;
    for (let k = same; k < depth; k++) {
      const frame = path[k]!;
      if (k > 0) used = this.putByte(1, used);
      used = this.put(this.frameId(frame), used);
      this.keyEnds[k] = used;
      last[k] = frame;
    }
    this.lastDepth = depth;
    const dictionaryBytes = this.dictionaryBytes();
    this.frameIds.addItems(path, depth);
    this.frameIds.endRow(r);
    const stackId = stackIdBytesOfKey(this.keyView(used), this.idBytes);
    this.stackId.set(r, stackId);
    this.metricColumn.set(r, this.metricKey);
    this.leaf.set(r, path[depth - 1]!);
    this.count.set(r, row.count);
    this.duration.set(r, row.durationNs);
    if (Number.isFinite(row.firstRelNs))
      this.firstTs.setSum(r, this.baseHigh, this.baseLow, row.firstRelNs);
    else this.firstTs.setNull(r);
    if (row.track < 0 || this.trackId(row.track) === null) this.track.setNull(r);
    else this.track.set(r, row.track);
    // What the batch's dictionaries gained (ids of frames, leaves, tracks, metrics), an index per
    // frame and the row's list offset, the stack id with its offset, an index each for the
    // metric, the leaf and the track, three int64s.
    this.bytes += this.dictionaryBytes() - dictionaryBytes + 4 * depth + 4 + stackId.length + 4;
    this.bytes += 12 + 24;
    this.length++;
    return this.length === this.rowsPerBatch || this.bytes >= this.batchBytes ? this.take() : null;
  }

  /** Bytes of the batch's dictionaries so far. */
  private dictionaryBytes(): number {
    return (
      this.frameIds.dictionaryBytes +
      this.leaf.dictionaryBytes +
      this.track.dictionaryBytes +
      this.metricColumn.dictionaryBytes
    );
  }

  finish(): ColumnBatch | null {
    return this.length > 0 ? this.take() : null;
  }

  private take(): ColumnBatch {
    const n = this.length;
    const batch: ColumnBatch = {
      table: "stacks",
      length: n,
      columns: {
        stack_id: this.stackId.build(n),
        metric: this.metricColumn.build(n),
        frame_ids: this.frameIds.build(n),
        leaf_frame_id: this.leaf.build(n),
        sample_count: this.count.build(n),
        duration_ns: this.duration.build(n),
        first_ts_ns: this.firstTs.build(n),
        track_id: this.track.build(n),
      },
    };
    for (const builder of [
      this.stackId,
      this.metricColumn,
      this.frameIds,
      this.leaf,
      this.count,
      this.duration,
      this.firstTs,
      this.track,
    ])
      builder.reset();
    this.length = 0;
    this.bytes = 0;
    return batch;
  }

  private frameId(frame: number): Uint8Array {
    return (this.frameIdBytes[frame] ??= encoder.encode(this.frames.ids[frame]!));
  }

  private trackId(track: number): Uint8Array | null {
    let bytes = this.trackIdBytes[track];
    if (bytes === undefined) {
      const id = this.tracks(track).id;
      bytes = id === null ? null : encoder.encode(id);
      this.trackIdBytes[track] = bytes;
    }
    return bytes;
  }

  private put(bytes: Uint8Array, at: number): number {
    if (at + bytes.length > this.key.length) this.growKey(at + bytes.length);
    copyBytes(bytes, 0, bytes.length, this.key, at);
    return at + bytes.length;
  }

  private growDepth(depth: number): void {
    const size = Math.max(depth, this.lastPath.length * 2);
    const grow = (a: Int32Array) => {
      const next = new Int32Array(size);
      next.set(a);
      return next;
    };
    this.lastPath = grow(this.lastPath);
    this.keyEnds = grow(this.keyEnds);
  }

  private putByte(byte: number, at: number): number {
    if (at + 1 > this.key.length) this.growKey(at + 1);
    this.key[at] = byte;
    return at + 1;
  }

  /** The key's first `length` bytes: one view per length, not one per stack. */
  private keyView(length: number): Uint8Array {
    return (this.keyViews[length] ??= this.key.subarray(0, length));
  }

  private growKey(need: number): void {
    let size = this.key.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.key);
    this.key = next;
    this.keyViews = [];
  }
}
