/**
 * Builds Arrow `Data` for one column slice straight from TableBuffer cells. Numeric columns
 * go into typed arrays and strings into one UTF-8 byte buffer, so a million-row column costs
 * a few allocations instead of an Arrow Builder call (and its bookkeeping) per value.
 */
import {
  Bool,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Utf8,
  makeData,
  type Data,
  type DataType,
} from "apache-arrow/Arrow.dom";
import type { ColumnSpec, ColumnType } from "../domain/evidence-schema.ts";
import type { CellValue } from "../domain/table-buffer.ts";

/** Child field of list_utf8 columns; TableBuffer guarantees list items are strings. */
const LIST_ITEM = new Field("item", new Utf8(), false);

export function arrowType(type: ColumnType): DataType {
  switch (type) {
    case "utf8":
      return new Utf8();
    case "int32":
      return new Int32();
    case "int64":
      return new Int64();
    case "float64":
      return new Float64();
    case "bool":
      return new Bool();
    case "list_utf8":
      return new List(LIST_ITEM);
  }
}

export function arrowField(col: ColumnSpec): Field {
  return new Field(col.name, arrowType(col.type), col.nullable);
}

/** Validity bitmap that is only allocated once the first null shows up. */
class Validity {
  bitmap: Uint8Array | undefined;
  nullCount = 0;
  constructor(
    private readonly length: number,
    private readonly col: ColumnSpec,
  ) {}

  setNull(i: number): void {
    if (!this.col.nullable)
      throw new TypeError(`Expected ${this.col.name} to be set but row ${i} is null`);
    if (!this.bitmap) this.bitmap = new Uint8Array((this.length + 7) >> 3).fill(0xff);
    this.bitmap[i >> 3]! &= ~(1 << (i & 7));
    this.nullCount += 1;
  }
}

export function columnData(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): Data {
  switch (col.type) {
    case "utf8":
      return utf8Data(col, cells, start, end);
    case "int32":
      return int32Data(col, cells, start, end);
    case "int64":
      return int64Data(col, cells, start, end);
    case "float64":
      return float64Data(col, cells, start, end);
    case "bool":
      return boolData(col, cells, start, end);
    case "list_utf8":
      return listUtf8Data(col, cells, start, end);
  }
}

function int32Data(col: ColumnSpec, cells: readonly CellValue[], start: number, end: number): Data {
  const n = end - start;
  const values = new Int32Array(n);
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) {
      validity.setNull(i);
      continue;
    }
    const num = Number(v);
    // Int32Array would silently wrap out-of-range values.
    if ((num | 0) !== num)
      throw new RangeError(`${col.name} value ${String(v)} does not fit int32`);
    values[i] = num;
  }
  return makeData({
    type: new Int32(),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    data: values,
  });
}

function int64Data(col: ColumnSpec, cells: readonly CellValue[], start: number, end: number): Data {
  const n = end - start;
  const values = new BigInt64Array(n);
  // Number cells are written as two 32-bit halves: BigInt(number) per cell costs ~100 ns.
  const words = new Uint32Array(values.buffer);
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) {
      validity.setNull(i);
      continue;
    }
    if (typeof v === "bigint") {
      if (BigInt.asIntN(64, v) !== v)
        throw new RangeError(`${col.name} value ${v} does not fit int64`);
      values[i] = v;
    } else {
      // Numbers past 2^53 are already inexact; TableBuffer documents bigint for those.
      const num = v as number;
      if (!(num >= -(2 ** 63) && num < 2 ** 63))
        throw new RangeError(`${col.name} value ${num} does not fit int64`);
      const high = Math.floor(num / 0x1_0000_0000);
      words[2 * i] = num - high * 0x1_0000_0000; // little-endian: low word first
      words[2 * i + 1] = high; // negative high wraps to its two's complement word
    }
  }
  return makeData({
    type: new Int64(),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    data: values,
  });
}

function float64Data(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): Data {
  const n = end - start;
  const values = new Float64Array(n);
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) validity.setNull(i);
    else values[i] = Number(v);
  }
  return makeData({
    type: new Float64(),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    data: values,
  });
}

function boolData(col: ColumnSpec, cells: readonly CellValue[], start: number, end: number): Data {
  const n = end - start;
  const bits = new Uint8Array((n + 7) >> 3);
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) validity.setNull(i);
    else if (v === true) bits[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({
    type: new Bool(),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    data: bits,
  });
}

/**
 * UTF-8 bytes and int32 offsets for a run of strings (null/undefined = empty). Fast path:
 * one native join + encode, valid when the text is ASCII (bytes = UTF-16 units); otherwise
 * each string is written at its offset.
 */
function encodeUtf8(strings: readonly (string | null | undefined)[]): {
  offsets: Int32Array;
  bytes: Uint8Array;
} {
  const offsets = new Int32Array(strings.length + 1);
  let units = 0;
  for (let i = 0; i < strings.length; i++) {
    units += strings[i]?.length ?? 0;
    offsets[i + 1] = units;
  }
  const joined = strings.join("");
  const ascii = Buffer.from(joined, "utf8");
  if (ascii.length === units) return { offsets, bytes: checkOffsets(asPlainBytes(ascii)) };
  const bytes = Buffer.allocUnsafe(ascii.length);
  let pos = 0;
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i];
    if (s) pos += bytes.write(s, pos, "utf8");
    offsets[i + 1] = pos;
  }
  return { offsets, bytes: checkOffsets(asPlainBytes(bytes)) };
}

function checkOffsets(bytes: Uint8Array): Uint8Array {
  if (bytes.length > 0x7fffffff)
    throw new RangeError("UTF-8 data of one batch exceeds Arrow's int32 offsets");
  return bytes;
}

/** A plain Uint8Array view (Arrow and WASM copies expect no Buffer subclass behaviour). */
function asPlainBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

function utf8Data(col: ColumnSpec, cells: readonly CellValue[], start: number, end: number): Data {
  const n = end - start;
  const slice = cells.slice(start, end) as (string | null | undefined)[];
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = slice[i];
    if (v === null || v === undefined) validity.setNull(i);
    else if (typeof v !== "string")
      throw new TypeError(`Expected ${col.name} to be a string at row ${start + i}`);
  }
  const { offsets, bytes } = encodeUtf8(slice);
  return makeData({
    type: new Utf8(),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    valueOffsets: offsets,
    data: bytes,
  });
}

function listUtf8Data(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): Data {
  const n = end - start;
  const listOffsets = new Int32Array(n + 1);
  const items: string[] = [];
  const validity = new Validity(n, col);
  for (let i = 0; i < n; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) validity.setNull(i);
    else for (const item of v as string[]) items.push(item);
    listOffsets[i + 1] = items.length;
  }
  const { offsets, bytes } = encodeUtf8(items);
  const child = makeData({
    type: new Utf8(),
    length: items.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes,
  });
  return makeData({
    type: new List(LIST_ITEM),
    length: n,
    nullCount: validity.nullCount,
    nullBitmap: validity.bitmap,
    valueOffsets: listOffsets,
    child,
  });
}

/**
 * A column holding one value in every row (provenance). Built from bytes, not from `n` JS
 * strings; the Parquet writer then dictionary-encodes it down to a few bytes per page.
 */
export function constantData(col: ColumnSpec, value: string | number, n: number): Data {
  if (col.type === "int32") {
    if (typeof value !== "number" || (value | 0) !== value)
      throw new TypeError(`Provenance ${col.name} must be an int32`);
    return makeData({
      type: new Int32(),
      length: n,
      nullCount: 0,
      data: new Int32Array(n).fill(value),
    });
  }
  if (col.type !== "utf8" || typeof value !== "string")
    throw new TypeError(`Provenance ${col.name} must be a string`);
  const unit = new TextEncoder().encode(value);
  const data = new Uint8Array(unit.length * n);
  if (data.length > 0) {
    data.set(unit);
    // Doubling copies: log2(n) memcpy calls instead of n small ones.
    for (let filled = unit.length; filled < data.length; filled *= 2) {
      data.copyWithin(filled, 0, Math.min(filled, data.length - filled));
    }
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) offsets[i] = i * unit.length;
  return makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: offsets, data });
}
