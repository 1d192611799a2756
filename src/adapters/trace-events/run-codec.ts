/**
 * The on-spill form of a sorted run of trace events: blocks of at most BLOCK_EVENTS
 * events, each a 16-byte header (event count, args bytes) followed by the columns
 * (float64: seq, start, dur, thread time; int32: track, frame, name, cat, ph, args length; uint8:
 * kind, flags) and the args texts, padded to 8 bytes. Columns are contiguous so a block
 * is read back with one call into typed-array views, not decoded field by field.
 */
import type { SpillFile } from "../adapter.ts";
import type { TraceColumns } from "./trace-columns.ts";

/**
 * Events per block, and args bytes per block (past which a block ends early; one event's args
 * may go over alone). The final merge holds one block per spilled run, and a trace has a run
 * per 512K events, so these bound the merge's memory per run, whatever the trace's size: with
 * 8192 events and no bound on args, a real Chromium Perfetto trace's blocks (58 bytes an event,
 * ~90 of args) took ~1.2 MB per cursor, 75 MB for the 62 runs of 600 MB (its worker peaked at
 * 534 MiB); with 2048 and still no bound, 413 KB per cursor (200 MB: 23 runs, 9.5 MB), which at
 * 2 GB (165 runs) would be ~68 MB.
 */
export const BLOCK_EVENTS = 1024;
export const BLOCK_ARGS_BYTES = 32 << 10;
const HEADER_BYTES = 16;

const pad8 = (n: number): number => (n + 7) & ~7;
const bodyBytes = (n: number, argsBytes: number): number => pad8(58 * n + argsBytes);

/** An event's fields in column arrays: a block's views, or a run still in memory. */
export interface EventViews {
  readonly seq: Float64Array;
  readonly start: Float64Array;
  readonly dur: Float64Array;
  readonly threadNs: Float64Array;
  readonly track: Int32Array;
  readonly frame: Int32Array;
  readonly name: Int32Array;
  readonly cat: Int32Array;
  readonly ph: Int32Array;
  /** Args bytes of the event (-1: none). */
  readonly argsLen: Int32Array;
  readonly kind: Uint8Array;
  readonly flags: Uint8Array;
  readonly args: Uint8Array;
}

/**
 * Events in (track, start, seq) order, one at a time: after `next()` returns true the
 * current event is at index `i` of `v`, its args (if `v.argsLen[i] >= 0`) at `argsAt`.
 */
export interface EventCursor {
  readonly i: number;
  readonly argsAt: number;
  readonly v: EventViews;
  next(): boolean;
  args(): Uint8Array | null;
}

/**
 * Views of one block's columns over a buffer. The properties are evaluated in the order
 * written, which is the layout's order (see the file's comment).
 */
function blockViews(buffer: ArrayBuffer, n: number, argsBytes: number): EventViews {
  let at = 0;
  const f64 = () => {
    const v = new Float64Array(buffer, at, n);
    at += 8 * n;
    return v;
  };
  const i32 = () => {
    const v = new Int32Array(buffer, at, n);
    at += 4 * n;
    return v;
  };
  const u8 = () => {
    const v = new Uint8Array(buffer, at, n);
    at += n;
    return v;
  };
  return {
    seq: f64(),
    start: f64(),
    dur: f64(),
    threadNs: f64(),
    track: i32(),
    frame: i32(),
    name: i32(),
    cat: i32(),
    ph: i32(),
    argsLen: i32(),
    kind: u8(),
    flags: u8(),
    args: new Uint8Array(buffer, at, argsBytes),
  };
}

/**
 * File offsets of one event's fields in a block written at `blockOffset` with `n` events, to patch
 * it in place.
 */
export function eventFieldOffsets(
  blockOffset: number,
  n: number,
  j: number,
): { start: number; dur: number; threadNs: number; flags: number } {
  const body = blockOffset + HEADER_BYTES;
  return {
    start: body + 8 * n + 8 * j,
    dur: body + 16 * n + 8 * j,
    threadNs: body + 24 * n + 8 * j,
    flags: body + 57 * n + j,
  };
}

/**
 * Encodes runs into one reused block buffer (a run is 512 blocks or more; fresh buffers were
 * garbage the collector let pile up).
 */
export class RunWriter {
  private buffer = new ArrayBuffer(bodyBytes(BLOCK_EVENTS, 1 << 16));
  private readonly header = new Int32Array(HEADER_BYTES / 4);

  /**
   * Appends the events of `cols` at positions `order` to `file` as blocks; `argsBound` false: as
   * blocks of BLOCK_EVENTS whatever their args (one block for at most that many events).
   */
  write(
    file: Pick<SpillFile, "append">,
    cols: TraceColumns,
    order: Int32Array,
    argsBound = true,
  ): void {
    const argsRef = cols.argsRef.array;
    const argsLength = cols.args.lengths.array;
    const argsMost = argsBound ? BLOCK_ARGS_BYTES : Number.POSITIVE_INFINITY;
    for (let from = 0, n = 0; from < order.length; from += n) {
      const most = Math.min(BLOCK_EVENTS, order.length - from);
      let argsBytes = 0;
      for (n = 0; n < most; n++) {
        const ref = argsRef[order[from + n]!]!;
        const length = ref >= 0 ? argsLength[ref]! : 0;
        if (n > 0 && argsBytes + length > argsMost) break;
        argsBytes += length;
      }
      const size = bodyBytes(n, argsBytes);
      if (size > this.buffer.byteLength) this.buffer = new ArrayBuffer(size);
      writeBlock(blockViews(this.buffer, n, argsBytes), cols, order.subarray(from, from + n));
      this.header[0] = n;
      this.header[1] = argsBytes;
      file.append(new Uint8Array(this.header.buffer));
      file.append(new Uint8Array(this.buffer, 0, size));
    }
  }
}

function writeBlock(v: EventViews, cols: TraceColumns, order: Int32Array): void {
  // Column by column: each loop reads one column in the run's order and writes one block column
  // in sequence; one event's thirteen fields at a time touched twenty-six places at once (a
  // 512K-event run of eight interleaved tracks, written to memory: ~60 ms, now ~45).
  gatherF64(v.seq, cols.seq.array, order);
  gatherF64(v.start, cols.startNs.array, order);
  gatherF64(v.dur, cols.durNs.array, order);
  gatherF64(v.threadNs, cols.threadNs.array, order);
  gatherI32(v.track, cols.track.array, order);
  gatherI32(v.frame, cols.frame.array, order);
  gatherI32(v.name, cols.name.array, order);
  gatherI32(v.cat, cols.cat.array, order);
  gatherI32(v.ph, cols.ph.array, order);
  gatherU8(v.kind, cols.kind.array, order);
  gatherU8(v.flags, cols.flags.array, order);
  const argsRef = cols.argsRef.array;
  let argsAt = 0;
  for (let j = 0; j < order.length; j++) {
    const ref = argsRef[order[j]!]!;
    if (ref < 0) {
      v.argsLen[j] = -1;
      continue;
    }
    const length = cols.args.copyTo(ref, v.args, argsAt);
    v.argsLen[j] = length;
    argsAt += length;
  }
}

// One function per array type: a generic one is polymorphic, and slower than the field-by-field
// loop it replaces.
function gatherF64(target: Float64Array, source: Float64Array, order: Int32Array): void {
  for (let j = 0; j < order.length; j++) target[j] = source[order[j]!]!;
}

function gatherI32(target: Int32Array, source: Int32Array, order: Int32Array): void {
  for (let j = 0; j < order.length; j++) target[j] = source[order[j]!]!;
}

function gatherU8(target: Uint8Array, source: Uint8Array, order: Int32Array): void {
  for (let j = 0; j < order.length; j++) target[j] = source[order[j]!]!;
}

/** Reads a spilled run back event by event. */
export class RunCursor implements EventCursor {
  i = -1;
  n = 0;
  argsAt = 0;
  v: EventViews;
  private position = 0;
  private nextArgsAt = 0;
  private buffer = new ArrayBuffer(0);
  private readonly header = new Int32Array(HEADER_BYTES / 4);

  constructor(private readonly file: SpillFile) {
    this.v = blockViews(this.buffer, 0, 0);
  }

  next(): boolean {
    if (this.i + 1 >= this.n && !this.readBlock()) return false;
    this.i++;
    this.argsAt = this.nextArgsAt;
    const len = this.v.argsLen[this.i]!;
    if (len > 0) this.nextArgsAt += len;
    return true;
  }

  args(): Uint8Array | null {
    const len = this.v.argsLen[this.i]!;
    return len < 0 ? null : this.v.args.subarray(this.argsAt, this.argsAt + len);
  }

  private readBlock(): boolean {
    if (this.position >= this.file.size) return false;
    this.file.read(new Uint8Array(this.header.buffer), this.position);
    const n = this.header[0]!;
    const argsBytes = this.header[1]!;
    const size = bodyBytes(n, argsBytes);
    // As large as the largest block so far (rounded up to 16 KiB), not doubled: one buffer per run
    // is held through the merge.
    if (this.buffer.byteLength < size) this.buffer = new ArrayBuffer((size + 0x3fff) & ~0x3fff);
    this.file.read(new Uint8Array(this.buffer, 0, size), this.position + HEADER_BYTES);
    this.position += HEADER_BYTES + size;
    this.v = blockViews(this.buffer, n, argsBytes);
    this.n = n;
    this.i = -1;
    this.nextArgsAt = 0;
    return n > 0 || this.readBlock();
  }
}
