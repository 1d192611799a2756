/**
 * Builders for ColumnBatch vectors with a fixed row capacity (one batch). Strings are
 * appended as UTF-8 bytes (from a string table's cached encoding or straight from a
 * parser's text), so no JS string is created per row. A batch is built by copying the rows into
 * batch buffers (batch-buffers.ts), which come back once the batch's part is encoded.
 */
import type { ColumnVector } from "../../domain/column-batch.ts";
import { copyBigInt64, copyInt32, copyUint8 } from "./batch-buffers.ts";
import { copyBytes } from "./growable.ts";

const TWO_32 = 0x1_0000_0000;

class ValidityBits {
  valid: Uint8Array | null = null;
  nullCount = 0;
  constructor(private readonly capacity: number) {}

  setNull(row: number): void {
    if (!this.valid) this.valid = new Uint8Array((this.capacity + 7) >> 3).fill(0xff);
    this.valid[row >> 3]! &= ~(1 << (row & 7));
    this.nullCount++;
  }

  /** The bitmap trimmed to `length` rows. */
  take(length: number): { valid: Uint8Array | null; nullCount: number } {
    return {
      valid: this.valid && this.nullCount > 0 ? copyUint8(this.valid, (length + 7) >> 3) : null,
      nullCount: this.nullCount,
    };
  }

  reset(): void {
    if (this.nullCount > 0) this.valid!.fill(0xff);
    this.nullCount = 0;
  }
}

export class Int32Builder {
  private readonly values: Int32Array;
  private readonly bits: ValidityBits;
  constructor(capacity: number) {
    this.values = new Int32Array(capacity);
    this.bits = new ValidityBits(capacity);
  }
  set(row: number, value: number): void {
    this.values[row] = value;
  }
  setNull(row: number): void {
    this.bits.setNull(row);
  }
  build(length: number): ColumnVector {
    return { type: "int32", values: copyInt32(this.values, length), ...this.bits.take(length) };
  }
  /** Empties the builder for the next batch (`build` copied what it returned). */
  reset(): void {
    this.bits.reset();
  }
}

/** int64 from doubles (exact below 2^53) or from a (high, low) split for larger values. */
export class Int64Builder {
  private readonly values: BigInt64Array;
  private readonly words: Uint32Array;
  private readonly bits: ValidityBits;
  constructor(capacity: number) {
    this.values = new BigInt64Array(capacity);
    this.words = new Uint32Array(this.values.buffer);
    this.bits = new ValidityBits(capacity);
  }
  /** An integral double in [-2^63, 2^63). */
  set(row: number, value: number): void {
    if (!(value >= -(2 ** 63) && value < 2 ** 63))
      throw new RangeError(`Value ${value} does not fit int64`);
    const high = Math.floor(value / TWO_32);
    this.words[2 * row] = value - high * TWO_32;
    this.words[2 * row + 1] = high;
  }
  setBig(row: number, value: bigint): void {
    if (BigInt.asIntN(64, value) !== value)
      throw new RangeError(`Value ${value} does not fit int64`);
    this.values[row] = value;
  }
  /**
   * base + offset exactly, where base = baseHigh * 2^32 + baseLow (baseLow in [0, 2^32)) and
   * |offset| < 2^53.
   */
  setSum(row: number, baseHigh: number, baseLow: number, offset: number): void {
    const low = baseLow + offset;
    const carry = Math.floor(low / TWO_32);
    const high = baseHigh + carry;
    if (high < -0x8000_0000 || high > 0x7fff_ffff)
      throw new RangeError(
        `Value ${BigInt(baseHigh) * 2n ** 32n + BigInt(baseLow) + BigInt(offset)} does not ` +
          `fit int64`,
      );
    this.words[2 * row] = low - carry * TWO_32;
    this.words[2 * row + 1] = high;
  }
  setNull(row: number): void {
    this.bits.setNull(row);
  }
  build(length: number): ColumnVector {
    return { type: "int64", values: copyBigInt64(this.values, length), ...this.bits.take(length) };
  }
  reset(): void {
    this.bits.reset();
  }
}

export class Float64Builder {
  private readonly values: Float64Array;
  private readonly bits: ValidityBits;
  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
    this.bits = new ValidityBits(capacity);
  }
  set(row: number, value: number): void {
    this.values[row] = value;
  }
  setNull(row: number): void {
    this.bits.setNull(row);
  }
  build(length: number): ColumnVector {
    return { type: "float64", values: this.values.slice(0, length), ...this.bits.take(length) };
  }
  reset(): void {
    this.bits.reset();
  }
}

export class Utf8Builder {
  private readonly offsets: Int32Array;
  private data: Uint8Array;
  private used = 0;
  private readonly bits: ValidityBits;
  constructor(capacity: number, initialBytes = capacity * 16) {
    this.offsets = new Int32Array(capacity + 1);
    this.data = new Uint8Array(Math.max(1024, initialBytes));
    this.bits = new ValidityBits(capacity);
  }
  /** Appends row `row`'s bytes; rows must be appended in order. */
  set(row: number, bytes: Uint8Array): void {
    this.setRange(row, bytes, 0, bytes.length);
  }
  /** `set` of `length` bytes of `source` from `from`, without a view of them. */
  setRange(row: number, source: Uint8Array, from: number, length: number): void {
    if (this.used + length > this.data.length) this.grow(length);
    copyBytes(source, from, length, this.data, this.used);
    this.used += length;
    this.offsets[row + 1] = this.used;
  }
  setNull(row: number): void {
    this.bits.setNull(row);
    this.offsets[row + 1] = this.used;
  }
  /** Bytes of the rows set so far. */
  get bytes(): number {
    return this.used;
  }
  private grow(extra: number): void {
    this.data = withRoom(this.data, this.used, extra);
  }
  build(length: number): ColumnVector {
    return {
      type: "utf8",
      offsets: copyInt32(this.offsets, length + 1),
      data: copyUint8(this.data, this.used),
      ...this.bits.take(length),
    };
  }
  reset(): void {
    this.used = 0;
    this.bits.reset();
  }
}

/** The bytes of each key a DictUtf8Builder is given (a string table, a track's id). */
export interface KeyBytes {
  bytes(key: number): Uint8Array;
}

/**
 * A batch's own utf8 dictionary over keys (string ids: equal keys, equal strings): a key's bytes
 * are copied in once per batch, the first time the batch sees it, and its cells cost an index.
 */
class BatchDictionary {
  /** Per key, 1 + its index in this dictionary; 0 while the batch lacks it. */
  private slotOf = new Int32Array(1024);
  /** This batch's keys in dictionary order (what reset clears from slotOf). */
  private keys: Int32Array;
  private offsets: Int32Array;
  private data: Uint8Array = new Uint8Array(4096);
  private entries = 0;
  /** Bytes of the dictionary's strings so far. */
  used = 0;
  constructor(
    private readonly source: KeyBytes,
    entries: number,
  ) {
    this.keys = new Int32Array(entries);
    this.offsets = new Int32Array(entries + 1);
  }
  /** Bytes of the dictionary as built: its strings and their offsets. */
  get bytes(): number {
    return this.used + 4 * (this.entries + 1);
  }
  /** The dictionary index of `key` (a non-negative integer), added on first sight. */
  indexOf(key: number): number {
    if (key >= this.slotOf.length) this.growSlots(key);
    const slot = this.slotOf[key]!;
    return slot > 0 ? slot - 1 : this.add(key);
  }
  private add(key: number): number {
    const bytes = this.source.bytes(key);
    if (this.used + bytes.length > this.data.length)
      this.data = withRoom(this.data, this.used, bytes.length);
    copyBytes(bytes, 0, bytes.length, this.data, this.used);
    this.used += bytes.length;
    const index = this.entries++;
    if (index + 1 >= this.offsets.length) {
      this.keys = grownInt32(this.keys, this.keys.length * 2);
      this.offsets = grownInt32(this.offsets, this.offsets.length * 2);
    }
    this.keys[index] = key;
    this.offsets[index + 1] = this.used;
    this.slotOf[key] = index + 1;
    return index;
  }
  private growSlots(key: number): void {
    let size = this.slotOf.length * 2;
    while (size <= key) size *= 2;
    this.slotOf = grownInt32(this.slotOf, size);
  }
  /** Copies of the dictionary's offsets and bytes, for a built vector. */
  build(): { dictOffsets: Int32Array; dictData: Uint8Array } {
    return {
      dictOffsets: copyInt32(this.offsets, this.entries + 1),
      dictData: copyUint8(this.data, this.used),
    };
  }
  reset(): void {
    for (let i = 0; i < this.entries; i++) this.slotOf[this.keys[i]!] = 0;
    this.entries = 0;
    this.used = 0;
  }
}

/** utf8 cells as indices into the batch's own dictionary (a utf8_dict vector). */
export class DictUtf8Builder {
  private readonly indices: Int32Array;
  private readonly bits: ValidityBits;
  private readonly dictionary: BatchDictionary;
  constructor(capacity: number, source: KeyBytes) {
    this.indices = new Int32Array(capacity);
    this.bits = new ValidityBits(capacity);
    // A batch's rows name at most `capacity` keys: the dictionary never grows.
    this.dictionary = new BatchDictionary(source, capacity);
  }
  /** Bytes of the batch's dictionary so far (strings and offsets). */
  get dictionaryBytes(): number {
    return this.dictionary.bytes;
  }
  /** Row `row` holds the value of `key` (a non-negative integer). */
  set(row: number, key: number): void {
    this.indices[row] = this.dictionary.indexOf(key);
  }
  setNull(row: number): void {
    this.bits.setNull(row);
    this.indices[row] = 0;
  }
  build(length: number): ColumnVector {
    return {
      type: "utf8_dict",
      indices: copyInt32(this.indices, length),
      ...this.dictionary.build(),
      ...this.bits.take(length),
    };
  }
  reset(): void {
    this.dictionary.reset();
    this.bits.reset();
  }
}

/**
 * list<utf8> cells (never null) as indices into the batch's own dictionary (a list_utf8_dict
 * vector): an item names its string by a key, as DictUtf8Builder's cells do, and costs an index.
 */
export class ListDictUtf8Builder {
  private readonly listOffsets: Int32Array;
  private indices = new Int32Array(1024);
  private itemCount = 0;
  private readonly dictionary: BatchDictionary;
  constructor(capacity: number, source: KeyBytes) {
    this.listOffsets = new Int32Array(capacity + 1);
    this.dictionary = new BatchDictionary(source, 256);
  }
  /** Bytes of the batch's dictionary so far (strings and offsets). */
  get dictionaryBytes(): number {
    return this.dictionary.bytes;
  }
  /** Appends the first `count` of `keys` (non-negative integers) to the open row. */
  addItems(keys: ArrayLike<number>, count: number): void {
    if (this.itemCount + count > this.indices.length) {
      let size = this.indices.length * 2;
      while (size < this.itemCount + count) size *= 2;
      const next = new Int32Array(size);
      next.set(this.indices.subarray(0, this.itemCount));
      this.indices = next;
    }
    const indices = this.indices;
    const dictionary = this.dictionary;
    let at = this.itemCount;
    for (let k = 0; k < count; k++) indices[at++] = dictionary.indexOf(keys[k]!);
    this.itemCount = at;
  }
  endRow(row: number): void {
    this.listOffsets[row + 1] = this.itemCount;
  }
  build(length: number): ColumnVector {
    return {
      type: "list_utf8_dict",
      listOffsets: copyInt32(this.listOffsets, length + 1),
      indices: copyInt32(this.indices, this.itemCount),
      ...this.dictionary.build(),
      valid: null,
      nullCount: 0,
    };
  }
  reset(): void {
    this.dictionary.reset();
    this.itemCount = 0;
  }
}

function grownInt32(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}

/** list<utf8> cells (never null): items are appended to the open row, which `endRow` closes. */
export class ListUtf8Builder {
  private readonly listOffsets: Int32Array;
  private itemOffsets = new Int32Array(1025);
  private itemCount = 0;
  private data: Uint8Array = new Uint8Array(1 << 16);
  private used = 0;
  constructor(capacity: number) {
    this.listOffsets = new Int32Array(capacity + 1);
  }
  addItem(bytes: Uint8Array): void {
    if (this.itemCount + 1 >= this.itemOffsets.length) {
      const next = new Int32Array(this.itemOffsets.length * 2);
      next.set(this.itemOffsets);
      this.itemOffsets = next;
    }
    if (this.used + bytes.length > this.data.length)
      this.data = withRoom(this.data, this.used, bytes.length);
    copyBytes(bytes, 0, bytes.length, this.data, this.used);
    this.used += bytes.length;
    this.itemOffsets[++this.itemCount] = this.used;
  }
  /**
   * Appends `count` items at once: item k is `data` from `ends[k - 1]` (0 for the first) to
   * `ends[k]`. One copy for the whole run, where `addItem` copies item by item.
   */
  addItems(data: Uint8Array, ends: Int32Array, count: number): void {
    if (count === 0) return;
    if (this.itemCount + count >= this.itemOffsets.length) {
      let size = this.itemOffsets.length * 2;
      while (this.itemCount + count >= size) size *= 2;
      const next = new Int32Array(size);
      next.set(this.itemOffsets);
      this.itemOffsets = next;
    }
    const bytes = ends[count - 1]!;
    if (this.used + bytes > this.data.length) this.data = withRoom(this.data, this.used, bytes);
    copyBytes(data, 0, bytes, this.data, this.used);
    const offsets = this.itemOffsets;
    const base = this.used;
    const at = this.itemCount + 1;
    for (let k = 0; k < count; k++) offsets[at + k] = base + ends[k]!;
    this.itemCount += count;
    this.used += bytes;
  }
  endRow(row: number): void {
    this.listOffsets[row + 1] = this.itemCount;
  }
  build(length: number): ColumnVector {
    return {
      type: "list_utf8",
      listOffsets: copyInt32(this.listOffsets, length + 1),
      offsets: copyInt32(this.itemOffsets, this.itemCount + 1),
      data: copyUint8(this.data, this.used),
      valid: null,
      nullCount: 0,
    };
  }
  reset(): void {
    this.itemCount = 0;
    this.used = 0;
  }
}

/**
 * `data` (its first `used` bytes kept) with room for `extra` more, doubled; UTF-8 of one batch
 * stays within Arrow's int32 offsets.
 */
function withRoom(data: Uint8Array, used: number, extra: number): Uint8Array {
  let size = data.length * 2;
  while (size < used + extra) size *= 2;
  if (size > 0x7fffffff)
    throw new RangeError("UTF-8 data of one batch exceeds Arrow's int32 offsets");
  const next = new Uint8Array(size);
  next.set(data.subarray(0, used));
  return next;
}
