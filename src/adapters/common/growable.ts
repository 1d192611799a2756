/**
 * Append-only typed arrays that double when full. `array` may be longer than `length`;
 * readers index below `length`. Used for per-event columns of streamed traces, where the
 * event count is unknown until the end.
 */
type TypedArray = Uint8Array | Int32Array | Float64Array;

class Growable<T extends TypedArray> {
  array: T;
  length = 0;
  constructor(
    private readonly make: (n: number) => T,
    private readonly fill: number,
    capacity = 1024,
  ) {
    this.array = make(capacity);
    if (fill !== 0) this.array.fill(fill);
  }

  push(value: number): number {
    if (this.length === this.array.length) this.grow();
    this.array[this.length] = value;
    return this.length++;
  }

  /**
   * Makes `n` more entries valid at once (their values are the caller's to set); returns the first
   * one's index.
   */
  extend(n: number): number {
    const at = this.length;
    while (this.length + n > this.array.length) this.grow();
    this.length += n;
    return at;
  }

  /** Empties the array, its used entries back to the fill value (what `add`-style callers read). */
  reset(): void {
    this.array.fill(this.fill, 0, this.length);
    this.length = 0;
  }

  private grow(): void {
    const next = this.make(this.array.length * 2);
    next.set(this.array);
    if (this.fill !== 0) next.fill(this.fill, this.array.length);
    this.array = next;
  }
}

export class GrowableU8 extends Growable<Uint8Array> {
  constructor(fill = 0, capacity?: number) {
    super((n) => new Uint8Array(n), fill, capacity);
  }
}
export class GrowableI32 extends Growable<Int32Array> {
  constructor(fill = 0, capacity?: number) {
    super((n) => new Int32Array(n), fill, capacity);
  }
}
export class GrowableF64 extends Growable<Float64Array> {
  constructor(fill = 0, capacity?: number) {
    super((n) => new Float64Array(n), fill, capacity);
  }
}

/** A TextStore's contents as its arrays (see TextStore.parts). */
export interface TextStoreParts {
  data: Uint8Array;
  used: number;
  starts: Float64Array;
  lengths: Int32Array;
  count: number;
}

/** UTF-8 texts appended one after another; each gets an index. */
export class TextStore {
  private data: Uint8Array = new Uint8Array(1 << 16);
  private used = 0;
  readonly starts = new GrowableF64();
  readonly lengths = new GrowableI32();

  /** The store's arrays as they are (to hand to another thread; the store is not used after). */
  parts(): TextStoreParts {
    return {
      data: this.data,
      used: this.used,
      starts: this.starts.array,
      lengths: this.lengths.array,
      count: this.lengths.length,
    };
  }

  /** A store over arrays from `parts` (its own from now on). */
  static fromParts(parts: TextStoreParts): TextStore {
    const store = new TextStore();
    store.data = parts.data;
    store.used = parts.used;
    store.starts.array = parts.starts;
    store.starts.length = parts.count;
    store.lengths.array = parts.lengths;
    store.lengths.length = parts.count;
    return store;
  }

  add(bytes: Uint8Array): number {
    return this.addRange(bytes, 0, bytes.length);
  }

  /**
   * `add` of `length` bytes of `source` from `from`, without a view of them (texts straight from a
   * scanner's memory: a view and a `set` per event cost ~2x the copy, see copyBytes).
   */
  addRange(source: Uint8Array, from: number, length: number): number {
    if (this.used + length > this.data.length) {
      let size = this.data.length * 2;
      while (size < this.used + length) size *= 2;
      const next = new Uint8Array(size);
      copyBytes(this.data, 0, this.used, next, 0);
      this.data = next;
    }
    copyBytes(source, from, length, this.data, this.used);
    this.starts.push(this.used);
    this.used += length;
    return this.lengths.push(length);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.used;
  }

  /**
   * The buffer the texts are in (text `i` at `starts[i]`, `lengths[i]` bytes); valid until the next
   * `add`.
   */
  get buffer(): Uint8Array {
    return this.data;
  }

  clear(): void {
    this.used = 0;
    this.starts.length = 0;
    this.lengths.length = 0;
  }

  get(index: number): Uint8Array {
    const start = this.starts.array[index]!;
    return this.data.subarray(start, start + this.lengths.array[index]!);
  }

  /** Copies text `index` into `target` at `at` (no view of it); returns its length. */
  copyTo(index: number, target: Uint8Array, at: number): number {
    const length = this.lengths.array[index]!;
    copyBytes(this.data, this.starts.array[index]!, length, target, at);
    return length;
  }
}

const bufferCopy = Buffer.prototype.copy;

/**
 * Copies `length` bytes from `source` at `from` into `target` at `to` (which has room for
 * them), without a view of either: a subarray view per event was ~4% of a trace import.
 * Short copies go byte by byte; longer ones through Buffer's ranged copy, which takes plain
 * Uint8Arrays (2M copies: 50 ms at 16-32 bytes, 70 ms at 64, 120 ms at 200, against 150-250 ms
 * for `set` of a subarray and 160-600 ms for the loop; below ~24 bytes the loop wins).
 */
export function copyBytes(
  source: Uint8Array,
  from: number,
  length: number,
  target: Uint8Array,
  to: number,
): void {
  if (length < 24) {
    for (let i = 0; i < length; i++) target[to + i] = source[from + i]!;
  } else {
    bufferCopy.call(source, target, to, from, from + length);
  }
}

/** A copy of `array` with room for `length` elements (the rest zero). */
export function grown<T extends TypedArray>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
