/**
 * The current track's events between the merge and the nester: copied out of the run
 * cursor (whose block moves on) and held until their B ends and their same-start group
 * are known. Handles are absolute (they survive compaction, which drops what has been
 * nested), so the B/E matcher can refer to open B events by handle.
 */
import { copyBytes, grown } from "../common/growable.ts";
import type { EventCursor } from "./run-codec.ts";

/** An empty array of `array`'s type for `n` elements. */
function fresh<T extends Float64Array | Int32Array | Uint8Array>(array: T, n: number): T {
  return new (array.constructor as new (n: number) => T)(n);
}

/** Events the arrays are made for, and args bytes, at first. */
const FIRST_CAPACITY = 1024;
const FIRST_ARGS_BYTES = 1 << 16;
/**
 * What `release` keeps between tracks: ~8 MB of arrays and 2 MiB of args. Back to the first
 * sizes, every track grew its arrays again from 1,024 events: ~0.27 s of the parser thread on the
 * Chromium startup trace repeated to 100 MB, whose 103 tracks held up to 256K events each.
 */
export const KEPT_CAPACITY = 1 << 17;
export const KEPT_ARGS_BYTES = 2 << 20;

export class PendingEvents {
  /** Handle of index 0. */
  base = 0;
  /** Index of the first event not yet nested. */
  head = 0;
  length = 0;
  private capacity = FIRST_CAPACITY;
  seq = new Float64Array(this.capacity);
  start = new Float64Array(this.capacity);
  dur = new Float64Array(this.capacity);
  threadNs = new Float64Array(this.capacity);
  frame = new Int32Array(this.capacity);
  name = new Int32Array(this.capacity);
  cat = new Int32Array(this.capacity);
  ph = new Int32Array(this.capacity);
  depth = new Int32Array(this.capacity);
  /** Offset of the event's args in `argsBytes` (monotonic, also for events without args). */
  argsAt = new Float64Array(this.capacity);
  argsLen = new Int32Array(this.capacity);
  kind = new Uint8Array(this.capacity);
  flags = new Uint8Array(this.capacity);
  private argsBytes = new Uint8Array(FIRST_ARGS_BYTES);
  private argsUsed = 0;

  /** Events held that are not nested yet. */
  get waiting(): number {
    return this.length - this.head;
  }

  /** Bytes of args held (nested events' included until the next compaction). */
  get argsHeld(): number {
    return this.argsUsed;
  }

  /** Copies the cursor's current event; returns its handle. */
  push(c: EventCursor): number {
    if (this.length === this.capacity) this.grow();
    const v = c.v;
    const i = c.i;
    const k = this.length++;
    this.seq[k] = v.seq[i]!;
    this.start[k] = v.start[i]!;
    this.dur[k] = v.dur[i]!;
    this.threadNs[k] = v.threadNs[i]!;
    this.frame[k] = v.frame[i]!;
    this.name[k] = v.name[i]!;
    this.cat[k] = v.cat[i]!;
    this.ph[k] = v.ph[i]!;
    this.depth[k] = 0;
    this.kind[k] = v.kind[i]!;
    this.flags[k] = v.flags[i]!;
    this.argsAt[k] = this.argsUsed;
    const len = v.argsLen[i]!;
    this.argsLen[k] = len;
    if (len > 0) {
      if (this.argsUsed + len > this.argsBytes.length) this.growArgs(len);
      copyBytes(v.args, c.argsAt, len, this.argsBytes, this.argsUsed);
      this.argsUsed += len;
    }
    return this.base + k;
  }

  /**
   * Where event `k`'s args are: `argsBytes` from `argsAt[k]`, `argsLen[k]` bytes (-1: none). Valid
   * until the next push or compaction.
   */
  get argsData(): Uint8Array {
    return this.argsBytes;
  }

  /** Drops the nested events when they are at least half of what is held. */
  compact(): void {
    const head = this.head;
    if (head === 0 || (head < this.length && (head < 4096 || head * 2 < this.length))) return;
    const keep = this.length - head;
    const argsFrom = keep > 0 ? this.argsAt[head]! : this.argsUsed;
    for (const column of [
      this.seq,
      this.start,
      this.dur,
      this.threadNs,
      this.frame,
      this.name,
      this.cat,
      this.ph,
      this.depth,
      this.argsAt,
      this.argsLen,
      this.kind,
      this.flags,
    ])
      column.copyWithin(0, head, this.length);
    for (let k = 0; k < keep; k++) this.argsAt[k]! -= argsFrom;
    this.argsBytes.copyWithin(0, argsFrom, this.argsUsed);
    this.argsUsed -= argsFrom;
    this.base += head;
    this.length = keep;
    this.head = 0;
  }

  /**
   * Lets arrays grown past KEPT_CAPACITY (args past KEPT_ARGS_BYTES) for a track that held many
   * events go, once nothing is held (between tracks): a track whose B stays open holds up to
   * PENDING_EVENTS events and 16 MiB of args (~50 MB of arrays), which the tracks after it,
   * holding few, kept through the rest of the merge (the corpus's Chromium startup trace repeated
   * to 2 GB: from its third track of 103).
   */
  release(): void {
    if (this.length !== 0) throw new Error("pending events: released while holding events");
    if (this.capacity > KEPT_CAPACITY) this.resize(KEPT_CAPACITY, fresh);
    if (this.argsBytes.length > KEPT_ARGS_BYTES) this.argsBytes = new Uint8Array(KEPT_ARGS_BYTES);
    this.argsUsed = 0;
  }

  private grow(): void {
    this.resize(this.capacity * 2, grown);
  }

  /** Every column as `make` gives it for `n` events (`grown`: its contents kept; `fresh`: not). */
  private resize(
    n: number,
    make: <T extends Float64Array | Int32Array | Uint8Array>(array: T, n: number) => T,
  ): void {
    this.seq = make(this.seq, n);
    this.start = make(this.start, n);
    this.dur = make(this.dur, n);
    this.threadNs = make(this.threadNs, n);
    this.frame = make(this.frame, n);
    this.name = make(this.name, n);
    this.cat = make(this.cat, n);
    this.ph = make(this.ph, n);
    this.depth = make(this.depth, n);
    this.argsAt = make(this.argsAt, n);
    this.argsLen = make(this.argsLen, n);
    this.kind = make(this.kind, n);
    this.flags = make(this.flags, n);
    this.capacity = n;
  }

  private growArgs(need: number): void {
    let size = this.argsBytes.length * 2;
    while (size < this.argsUsed + need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.argsBytes.subarray(0, this.argsUsed));
    this.argsBytes = next;
  }
}
