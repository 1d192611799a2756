/**
 * Per-event columns of a streamed trace: what the later passes (B/E matching, nesting,
 * row writing) need, in typed arrays, plus each kept event's name, category and phase as
 * string ids and its args as UTF-8 text. No JS object exists per event. The columns hold
 * one spool run at a time (see event-spool.ts); `seq` is the event's
 * event_index in the whole trace.
 */
import { GrowableF64, GrowableI32, GrowableU8, TextStore } from "../common/growable.ts";

export class TraceColumns {
  readonly seq = new GrowableF64();
  readonly kind = new GrowableU8();
  readonly flags = new GrowableU8();
  readonly track = new GrowableI32(-1);
  readonly startNs = new GrowableF64();
  readonly durNs = new GrowableF64(Number.NaN);
  /**
   * Thread (CPU) time, ns: for X events their thread duration, for B and E events the
   * thread's clock at the event (a B's becomes its slice's duration once paired); NaN: none.
   */
  readonly threadNs = new GrowableF64(Number.NaN);
  readonly frame = new GrowableI32(-1);
  /** String ids (-1: the field is not a string). */
  readonly name = new GrowableI32(-1);
  readonly cat = new GrowableI32(-1);
  readonly ph = new GrowableI32(-1);
  /** Index into `args` (-1: no args). */
  readonly argsRef = new GrowableI32(-1);
  readonly args = new TextStore();

  get length(): number {
    return this.kind.length;
  }

  /** Adds an event with defaults (skipped); returns its index in the columns. */
  add(seq: number): number {
    this.seq.push(seq);
    this.flags.push(0);
    this.track.push(-1);
    this.startNs.push(0);
    this.durNs.push(Number.NaN);
    this.threadNs.push(Number.NaN);
    this.frame.push(-1);
    this.name.push(-1);
    this.cat.push(-1);
    this.ph.push(-1);
    this.argsRef.push(-1);
    return this.kind.push(0);
  }

  /** Every column but the args texts (each holds one value per event). */
  private readonly columns = [
    this.seq,
    this.kind,
    this.flags,
    this.track,
    this.startNs,
    this.durNs,
    this.threadNs,
    this.frame,
    this.name,
    this.cat,
    this.ph,
    this.argsRef,
  ];

  /**
   * Adds `n` events numbered from `seq` at once and returns the first one's index: every
   * other column of those events is the caller's to set (see chrome-trace/piece-merge.ts).
   */
  extend(n: number, seq: number): number {
    const at = this.length;
    for (const column of this.columns) column.extend(n);
    for (let i = 0; i < n; i++) this.seq.array[at + i] = seq + i;
    return at;
  }

  /** Empties the columns, keeping their capacity for the next run. */
  clear(): void {
    for (const column of this.columns) column.length = 0;
    this.args.clear();
  }
}
