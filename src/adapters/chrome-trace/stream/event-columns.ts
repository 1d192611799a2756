/**
 * Per-event columns of a streamed trace, indexed by event position (event_index): what
 * the later passes (B/E matching, nesting, row writing) need, in typed arrays, plus each
 * kept event's name, category and phase as string ids and its args as UTF-8 text. No JS
 * object exists per event.
 */
import { GrowableF64, GrowableI32, GrowableU8, TextStore } from "../../common/growable.ts";

export class TraceColumns {
  readonly kind = new GrowableU8();
  readonly flags = new GrowableU8();
  readonly track = new GrowableI32(-1);
  readonly startNs = new GrowableF64();
  readonly durNs = new GrowableF64(Number.NaN);
  readonly frame = new GrowableI32(-1);
  /** String ids (-1: the field is not a string). */
  readonly name = new GrowableI32(-1);
  readonly cat = new GrowableI32(-1);
  readonly ph = new GrowableI32(-1);
  /** Index into `args` (-1: no args). */
  readonly argsRef = new GrowableI32(-1);
  readonly args = new TextStore();
  /** Nesting depth per event, filled once slices are nested. */
  depth: Int32Array<ArrayBufferLike> = new Int32Array(0);

  get length(): number {
    return this.kind.length;
  }

  /** Adds an event with defaults (skipped); returns its index. */
  add(): number {
    this.flags.push(0);
    this.track.push(-1);
    this.startNs.push(0);
    this.durNs.push(Number.NaN);
    this.frame.push(-1);
    this.name.push(-1);
    this.cat.push(-1);
    this.ph.push(-1);
    this.argsRef.push(-1);
    return this.kind.push(0);
  }
}
