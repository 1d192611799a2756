/**
 * Per-event columns of a streamed trace: what the later passes (B/E matching, nesting,
 * row writing) need, in typed arrays, plus each kept event's name, category and phase as
 * string ids and its args as UTF-8 text. No JS object exists per event. The columns hold
 * one spool run at a time (see event-spool.ts); `seq` is the event's
 * event_index in the whole trace.
 */
import {
  GrowableF64,
  GrowableI32,
  GrowableU8,
  TextStore,
  type TextStoreParts,
} from "../common/growable.ts";

/**
 * A run's columns as plain arrays, `length` events each (the arrays may be longer): what goes to
 * another thread to be written (see RunOffload), its buffers transferred.
 */
export interface TraceColumnParts {
  length: number;
  seq: Float64Array;
  kind: Uint8Array;
  flags: Uint8Array;
  track: Int32Array;
  startNs: Float64Array;
  durNs: Float64Array;
  threadNs: Float64Array;
  frame: Int32Array;
  name: Int32Array;
  cat: Int32Array;
  ph: Int32Array;
  argsRef: Int32Array;
  args: TextStoreParts;
}

export class TraceColumns {
  /** Events in the columns (each column's own `length` is kept only by `sync`). */
  private count = 0;
  readonly seq: GrowableF64;
  readonly kind: GrowableU8;
  readonly flags: GrowableU8;
  readonly track: GrowableI32;
  readonly startNs: GrowableF64;
  readonly durNs: GrowableF64;
  /**
   * Thread (CPU) time, ns: for X events their thread duration, for B and E events the
   * thread's clock at the event (a B's becomes its slice's duration once paired); NaN: none.
   */
  readonly threadNs: GrowableF64;
  readonly frame: GrowableI32;
  /** String ids (-1: the field is not a string). */
  readonly name: GrowableI32;
  readonly cat: GrowableI32;
  readonly ph: GrowableI32;
  /** Index into `args` (-1: no args). */
  readonly argsRef: GrowableI32;
  args = new TextStore();

  /** `capacity`: events held before the columns first grow. */
  constructor(capacity?: number) {
    this.seq = new GrowableF64(0, capacity);
    this.kind = new GrowableU8(0, capacity);
    this.flags = new GrowableU8(0, capacity);
    this.track = new GrowableI32(-1, capacity);
    this.startNs = new GrowableF64(0, capacity);
    this.durNs = new GrowableF64(Number.NaN, capacity);
    this.threadNs = new GrowableF64(Number.NaN, capacity);
    this.frame = new GrowableI32(-1, capacity);
    this.name = new GrowableI32(-1, capacity);
    this.cat = new GrowableI32(-1, capacity);
    this.ph = new GrowableI32(-1, capacity);
    this.argsRef = new GrowableI32(-1, capacity);
    this.columns = [
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
  }

  /** The columns as plain data and their buffers, to go to another thread (RunOffload). */
  handOver(): { data: TraceColumnParts; buffers: ArrayBuffer[] } {
    const data = this.parts();
    return { data, buffers: TraceColumns.buffersOf(data) };
  }

  /** Every buffer of the parts: the event columns', then the args store's three. */
  static buffersOf(parts: TraceColumnParts): ArrayBuffer[] {
    const { length: _, args, ...columns } = parts;
    const arrays = [...Object.values(columns), args.data, args.starts, args.lengths];
    return arrays.map((a) => a.buffer as ArrayBuffer);
  }

  /** The columns' arrays as they are; the columns are not used after (their buffers move). */
  private parts(): TraceColumnParts {
    return {
      length: this.length,
      seq: this.seq.array,
      kind: this.kind.array,
      flags: this.flags.array,
      track: this.track.array,
      startNs: this.startNs.array,
      durNs: this.durNs.array,
      threadNs: this.threadNs.array,
      frame: this.frame.array,
      name: this.name.array,
      cat: this.cat.array,
      ph: this.ph.array,
      argsRef: this.argsRef.array,
      args: this.args.parts(),
    };
  }

  /** Columns over arrays from `parts` (on the thread that writes them). */
  static fromParts(parts: TraceColumnParts): TraceColumns {
    const cols = new TraceColumns(1);
    const adopt = <T extends { array: unknown; length: number }>(g: T, array: T["array"]) => {
      g.array = array;
      g.length = parts.length;
    };
    adopt(cols.seq, parts.seq);
    adopt(cols.kind, parts.kind);
    adopt(cols.flags, parts.flags);
    adopt(cols.track, parts.track);
    adopt(cols.startNs, parts.startNs);
    adopt(cols.durNs, parts.durNs);
    adopt(cols.threadNs, parts.threadNs);
    adopt(cols.frame, parts.frame);
    adopt(cols.name, parts.name);
    adopt(cols.cat, parts.cat);
    adopt(cols.ph, parts.ph);
    adopt(cols.argsRef, parts.argsRef);
    cols.count = parts.length;
    cols.args = TextStore.fromParts(parts.args);
    return cols;
  }

  get length(): number {
    return this.count;
  }

  /**
   * Adds an event with defaults (skipped); returns its index in the columns. Past the end, every
   * column already holds its default (its fill, kept by `grow` and `clear`), so an event costs a
   * capacity check and one count, not a write per column. The columns' own lengths are set only
   * where their methods read them (`sync`): setting twelve per event, through one loop over three
   * classes of column, took ~5% of a trace's scan phase (in process, quiet machine: Perfetto
   * 40 MB 1,351 -> 1,282 ms, Chrome 100 MB 661-687 -> 635 ms).
   */
  add(seq: number): number {
    const i = this.count;
    if (i === this.kind.array.length) {
      this.sync();
      for (const column of this.columns) column.extend(1);
    }
    this.count = i + 1;
    this.seq.array[i] = seq;
    return i;
  }

  /** Gives every column the columns' length, before a method of theirs that reads it. */
  private sync(): void {
    for (const column of this.columns) column.length = this.count;
  }

  /** Every column but the args texts (each holds one value per event). */
  private readonly columns: (GrowableF64 | GrowableI32 | GrowableU8)[];

  /**
   * Adds `n` events numbered from `seq` at once and returns the first one's index: every
   * other column of those events is the caller's to set (see chrome-trace/piece-merge.ts).
   */
  extend(n: number, seq: number): number {
    const at = this.count;
    this.sync();
    for (const column of this.columns) column.extend(n);
    this.count = at + n;
    for (let i = 0; i < n; i++) this.seq.array[at + i] = seq + i;
    return at;
  }

  /** Empties the columns, keeping their capacity (with their defaults) for the next run. */
  clear(): void {
    this.sync();
    for (const column of this.columns) column.reset();
    this.count = 0;
    this.args.clear();
  }
}
