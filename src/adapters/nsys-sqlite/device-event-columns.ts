/**
 * The events read from an `nsys stats` GPU trace report, or from an Nsight export SQLite
 * cannot order for us (sorted-events.ts), held as columns while they are ordered per track: tracks,
 * categories and names as indexes into small tables of the strings that repeat, times in typed
 * arrays, args as UTF-8 bytes in one growing buffer. A million kernels were a million objects with
 * a JSON string each (a 2M-event export peaked at 1.4 GB); here an event costs about 40 bytes and
 * its args' bytes.
 */
import { GrowableF64, GrowableI32, TextStore } from "../common/growable.ts";

/** One event as the readers hand it over (and as `get` gives it back). */
export interface NsysEvent {
  track: string;
  category: string;
  name: string;
  start: number;
  /** Null for an instant (an NVTX mark). */
  end: number | null;
  /** The args as JSON text (null: none). */
  args: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Strings that repeat, each stored once: index by value and value by index. */
class StringTable {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.index.set(value, i);
    }
    return i;
  }
}

export class NsysEvents {
  readonly tracks = new StringTable();
  readonly categories = new StringTable();
  readonly names = new StringTable();
  readonly track = new GrowableI32();
  readonly category = new GrowableI32();
  readonly name = new GrowableI32();
  readonly start = new GrowableF64();
  /** NaN for an instant. */
  readonly end = new GrowableF64();
  /** Index into `args` (-1: none). */
  readonly argsRef = new GrowableI32();
  readonly args = new TextStore();

  get length(): number {
    return this.track.length;
  }

  push(e: NsysEvent): void {
    this.track.push(this.tracks.of(e.track));
    this.category.push(this.categories.of(e.category));
    this.name.push(this.names.of(e.name));
    this.start.push(e.start);
    this.end.push(e.end ?? Number.NaN);
    this.argsRef.push(e.args === null ? -1 : this.args.add(encoder.encode(e.args)));
  }

  /** Event i's end, null for an instant. */
  endOf(i: number): number | null {
    const end = this.end.array[i]!;
    return Number.isNaN(end) ? null : end;
  }

  /** Event i's args as UTF-8 bytes (null: none). */
  argsBytes(i: number): Uint8Array | null {
    const ref = this.argsRef.array[i]!;
    return ref < 0 ? null : this.args.get(ref);
  }

  /** Event i as an object (for tests and small readers; the batches read the columns). */
  get(i: number): NsysEvent {
    const args = this.argsBytes(i);
    return {
      track: this.tracks.values[this.track.array[i]!]!,
      category: this.categories.values[this.category.array[i]!]!,
      name: this.names.values[this.name.array[i]!]!,
      start: this.start.array[i]!,
      end: this.endOf(i),
      args: args === null ? null : decoder.decode(args),
    };
  }
}
