/**
 * The spool's last run, read where it is: the columns it was scanned into, in
 * (track, start, seq) order, without the spill round trip (encode into blocks, write,
 * read back) that runs written earlier need. Most traces are a single run.
 */
import type { EventCursor, EventViews } from "./run-codec.ts";
import type { TraceColumns } from "./trace-columns.ts";

export class ColumnsCursor implements EventCursor {
  i = -1;
  argsAt = 0;
  readonly v: EventViews;
  private k = -1;
  private readonly argsStart: Float64Array;
  private readonly refs: Int32Array;

  /**
   * `order`: positions of the events to read, in order (runOrder). The columns must not change
   * while this reads them.
   */
  constructor(
    cols: TraceColumns,
    private readonly order: Int32Array,
  ) {
    const n = cols.length;
    const argsLen = new Int32Array(n);
    const ref = cols.argsRef.array;
    const lengths = cols.args.lengths.array;
    for (let i = 0; i < n; i++) argsLen[i] = ref[i]! < 0 ? -1 : lengths[ref[i]!]!;
    this.argsStart = cols.args.starts.array;
    this.refs = ref;
    this.v = {
      seq: cols.seq.array,
      start: cols.startNs.array,
      dur: cols.durNs.array,
      threadNs: cols.threadNs.array,
      track: cols.track.array,
      frame: cols.frame.array,
      name: cols.name.array,
      cat: cols.cat.array,
      ph: cols.ph.array,
      argsLen,
      kind: cols.kind.array,
      flags: cols.flags.array,
      args: cols.args.buffer,
    };
  }

  next(): boolean {
    if (++this.k >= this.order.length) return false;
    const i = this.order[this.k]!;
    this.i = i;
    const ref = this.refs[i]!;
    this.argsAt = ref < 0 ? 0 : this.argsStart[ref]!;
    return true;
  }

  args(): Uint8Array | null {
    const len = this.v.argsLen[this.i]!;
    return len < 0 ? null : this.v.args.subarray(this.argsAt, this.argsAt + len);
  }
}
