/**
 * The current track's pending events beyond what PendingEvents holds in memory, in
 * arrival order, on scratch space. Events wait in PendingEvents until the oldest open B
 * has its end; a B that stays open for most of a track (a thread's whole run, a task that
 * never ends) would otherwise keep every later event of the track in memory. Past the
 * budget, events go here instead: buffered as trace columns, written as run blocks
 * (run-codec.ts) and read back in order once the B has ended and the events ahead of
 * them are written. A B's end that comes while the B is held here is written into the
 * held event itself (in the tail, in the block being read, or in place in the file), so
 * nothing per held event stays in memory.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";
import { TraceColumns } from "./trace-columns.ts";
import { FLAG_UNMATCHED_BEGIN } from "./event-flags.ts";
import { threadSpanNs } from "../common/time-ns.ts";
import {
  BLOCK_EVENTS,
  eventFieldOffsets,
  RunCursor,
  RunWriter,
  type EventCursor,
} from "./run-codec.ts";

export class PendingOverflow {
  private readonly tail = new TraceColumns();
  private readonly writer = new RunWriter();
  private file: SpillFile | null = null;
  private cursor: RunCursor | null = null;
  private order = new Int32Array(0);
  /** Handle of the first event held since the last reset; events are numbered from it in order. */
  private firstHandle = 0;
  private added = 0;
  private released = 0;

  /** Events held here: buffered in `tail` or in the file and not yet read back. */
  get count(): number {
    return this.added - this.released;
  }
  /** Per written block: number of its first event, its offset in the file, its events. */
  private readonly blockFirst: number[] = [];
  private readonly blockOffset: number[] = [];
  private readonly blockEvents: number[] = [];
  private readonly scratch = new Float64Array(1);
  private readonly scratchBytes = new Uint8Array(this.scratch.buffer);
  private readonly flagByte = new Uint8Array(1);

  constructor(private readonly space: SpillSpace) {}

  /** Appends the cursor's current event, whose handle is `handle`. */
  add(c: EventCursor, handle: number): void {
    if (this.added === this.released) {
      this.firstHandle = handle - this.added;
    }
    const v = c.v;
    const i = c.i;
    const t = this.tail;
    const k = t.add(v.seq[i]!);
    t.kind.array[k] = v.kind[i]!;
    t.flags.array[k] = v.flags[i]!;
    t.track.array[k] = v.track[i]!;
    t.startNs.array[k] = v.start[i]!;
    t.durNs.array[k] = v.dur[i]!;
    t.threadNs.array[k] = v.threadNs[i]!;
    t.frame.array[k] = v.frame[i]!;
    t.name.array[k] = v.name[i]!;
    t.cat.array[k] = v.cat[i]!;
    t.ph.array[k] = v.ph[i]!;
    const args = c.args();
    if (args !== null) t.argsRef.array[k] = t.args.add(args);
    this.added++;
    if (t.length >= BLOCK_EVENTS) this.flush();
  }

  /**
   * Gives a B held here its end: duration from its start, thread time from its thread
   * clock reading (see TrackSlicing.endBegin), and the unmatched flag. Returns false when
   * the event is not held here (it has been released already).
   */
  end(handle: number, endNs: number, unmatched: boolean, endThreadNs: number): boolean {
    const n = handle - this.firstHandle;
    if (n < this.released || n >= this.added) return false;
    const written = this.added - this.tail.length;
    if (n >= written) {
      const k = n - written;
      const t = this.tail;
      t.durNs.array[k] = Math.max(0, endNs - t.startNs.array[k]!);
      t.threadNs.array[k] = unmatched
        ? Number.NaN
        : threadSpanNs(t.threadNs.array[k]!, endThreadNs);
      if (unmatched) t.flags.array[k]! |= FLAG_UNMATCHED_BEGIN;
      return true;
    }
    const b = this.blockOf(n);
    const j = n - this.blockFirst[b]!;
    const at = eventFieldOffsets(this.blockOffset[b]!, this.blockEvents[b]!, j);
    const file = this.file!;
    file.read(this.scratchBytes, at.start);
    this.scratch[0] = Math.max(0, endNs - this.scratch[0]!);
    file.overwrite(this.scratchBytes, at.dur);
    const dur = this.scratch[0]!;
    file.read(this.scratchBytes, at.threadNs);
    this.scratch[0] = unmatched ? Number.NaN : threadSpanNs(this.scratch[0]!, endThreadNs);
    file.overwrite(this.scratchBytes, at.threadNs);
    const threadNs = this.scratch[0]!;
    if (unmatched) {
      file.read(this.flagByte, at.flags);
      this.flagByte[0]! |= FLAG_UNMATCHED_BEGIN;
      file.overwrite(this.flagByte, at.flags);
    }
    // The block the cursor has loaded is a copy: patch it too.
    if (this.released > 0 && this.blockOf(this.released - 1) === b) {
      const v = this.cursor!.v;
      v.dur[j] = dur;
      v.threadNs[j] = threadNs;
      if (unmatched) v.flags[j]! |= FLAG_UNMATCHED_BEGIN;
    }
    return true;
  }

  private blockOf(n: number): number {
    const first = this.blockFirst;
    let lo = 0;
    let hi = first.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (first[mid]! <= n) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Positions a cursor on the oldest event held here and releases it, or returns null
   * when nothing is held. The event stays readable through the cursor until the next call.
   */
  next(): RunCursor | null {
    if (this.count === 0) return null;
    if (this.cursor === null || !this.cursor.next()) {
      // Everything written has been read back: what is left is in the tail.
      this.flush();
      if (!this.cursor!.next()) throw new Error("pending overflow: an event was lost");
    }
    this.released++;
    return this.cursor;
  }

  /** Deletes the scratch file; the next overflow starts a new one. */
  reset(): void {
    this.file?.dispose();
    this.file = null;
    this.cursor = null;
    this.tail.clear();
    this.added = 0;
    this.released = 0;
    this.blockFirst.length = 0;
    this.blockOffset.length = 0;
    this.blockEvents.length = 0;
  }

  private flush(): void {
    const n = this.tail.length;
    if (n === 0) return;
    if (this.file === null) {
      this.file = this.space.create();
      this.cursor = new RunCursor(this.file);
    }
    if (this.order.length < n)
      this.order = Int32Array.from({ length: Math.max(n, BLOCK_EVENTS) }, (_, k) => k);
    // n <= BLOCK_EVENTS (add flushes at it), so this is one block: its args are not bounded, the
    // pending events' own budget bounds them.
    this.blockFirst.push(this.added - n);
    this.blockOffset.push(this.file.size);
    this.blockEvents.push(n);
    this.writer.write(this.file, this.tail, this.order.subarray(0, n), false);
    this.tail.clear();
  }
}
