/**
 * The current track's pending events beyond what PendingEvents holds in memory, in
 * arrival order, on scratch space. Events wait in PendingEvents until the oldest open B
 * has its end; a B that stays open for most of a track (a thread's whole run, a task that
 * never ends) would otherwise keep every later event of the track in memory. Past the
 * budget, events go here instead: buffered as trace columns, written as run blocks
 * (run-codec.ts) and read back in order once the B has ended and the events ahead of
 * them are written.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";
import { TraceColumns } from "../chrome-trace/stream/event-columns.ts";
import { BLOCK_EVENTS, RunCursor, RunWriter } from "./run-codec.ts";

export class PendingOverflow {
  /** Events held here: buffered in `tail` or in the file and not yet read back. */
  count = 0;
  private readonly tail = new TraceColumns();
  private readonly writer = new RunWriter();
  private file: SpillFile | null = null;
  private cursor: RunCursor | null = null;
  private order = new Int32Array(0);

  constructor(private readonly space: SpillSpace) {}

  /** Appends the cursor's current event. */
  add(c: RunCursor): void {
    const v = c.v;
    const i = c.i;
    const t = this.tail;
    const k = t.add(v.seq[i]!);
    t.kind.array[k] = v.kind[i]!;
    t.flags.array[k] = v.flags[i]!;
    t.track.array[k] = v.track[i]!;
    t.startNs.array[k] = v.start[i]!;
    t.durNs.array[k] = v.dur[i]!;
    t.frame.array[k] = v.frame[i]!;
    t.name.array[k] = v.name[i]!;
    t.cat.array[k] = v.cat[i]!;
    t.ph.array[k] = v.ph[i]!;
    const args = c.args();
    if (args !== null) t.argsRef.array[k] = t.args.add(args);
    this.count++;
    if (t.length >= BLOCK_EVENTS) this.flush();
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
    this.count--;
    return this.cursor;
  }

  /** Deletes the scratch file; the next overflow starts a new one. */
  reset(): void {
    this.file?.dispose();
    this.file = null;
    this.cursor = null;
    this.tail.clear();
    this.count = 0;
  }

  private flush(): void {
    const n = this.tail.length;
    if (n === 0) return;
    if (this.file === null) {
      this.file = this.space.create();
      this.cursor = new RunCursor(this.file);
    }
    if (this.order.length < n) this.order = Int32Array.from({ length: Math.max(n, BLOCK_EVENTS) }, (_, k) => k);
    this.writer.write(this.file, this.tail, this.order.subarray(0, n));
    this.tail.clear();
  }
}
