/**
 * Rows of a TableBuffer as a ColumnBatch: numbers into typed arrays, strings into one UTF-8
 * byte buffer with offsets, so a million-row column costs a few allocations, not a builder
 * call per value. Every cell is checked against its column as it is converted (nulls where
 * the column is not nullable, integers out of range). Parts written from row buffers (stacks
 * chunks, small tables) go this way to the Parquet encoder (arrow-ipc-stream.ts), and readers
 * wrap the same vectors as Arrow data (parquet-columns.ts).
 */
import type { ColumnBatch, ColumnVector } from "../domain/column-batch.ts";
import type { ColumnSpec } from "../domain/evidence-schema.ts";
import type { CellValue, TableBuffer } from "../domain/table-buffer.ts";

/** Rows [start, end) of `buffer` as a batch owning its arrays. */
export function tableBufferBatch(buffer: TableBuffer, start: number, end: number): ColumnBatch {
  const columns: ColumnBatch["columns"] = {};
  for (const col of buffer.schema.columns)
    columns[col.name] = cellVector(col, buffer.column(col.name), start, end);
  return { table: buffer.schema.name, length: end - start, columns };
}

/** Cells [start, end) of one column as a vector of the column's type. */
export function cellVector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  switch (col.type) {
    case "utf8":
      return utf8Vector(col, cells, start, end);
    case "int32":
      return int32Vector(col, cells, start, end);
    case "int64":
      return int64Vector(col, cells, start, end);
    case "float64":
      return float64Vector(col, cells, start, end);
    case "bool":
      return boolVector(col, cells, start, end);
    case "list_utf8":
      return listUtf8Vector(col, cells, start, end);
  }
}

/** Validity bitmap that is only allocated once the first null shows up. */
class Validity {
  private bitmap: Uint8Array | null = null;
  private nulls = 0;
  constructor(
    private readonly length: number,
    private readonly col: ColumnSpec,
  ) {}

  setNull(i: number): void {
    if (!this.col.nullable)
      throw new TypeError(`Expected ${this.col.name} to be set but row ${i} is null`);
    if (!this.bitmap) this.bitmap = new Uint8Array((this.length + 7) >> 3).fill(0xff);
    this.bitmap[i >> 3]! &= ~(1 << (i & 7));
    this.nulls += 1;
  }

  get parts(): { valid: Uint8Array | null; nullCount: number } {
    return { valid: this.bitmap, nullCount: this.nulls };
  }
}

type Cell = Exclude<CellValue, null | undefined>;

/**
 * Visits cells [start, end): each value with its row in the slice, each null (or undefined) into
 * the validity, which refuses it where the column is not nullable.
 */
function eachCell(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
  value: (row: number, cell: Cell) => void,
): { valid: Uint8Array | null; nullCount: number } {
  const validity = new Validity(end - start, col);
  for (let i = 0; i < end - start; i++) {
    const v = cells[start + i];
    if (v === null || v === undefined) validity.setNull(i);
    else value(i, v);
  }
  return validity.parts;
}

function int32Vector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const values = new Int32Array(end - start);
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    const num = Number(v);
    // Int32Array would silently wrap out-of-range values.
    if ((num | 0) !== num)
      throw new RangeError(`${col.name} value ${String(v)} does not fit int32`);
    values[i] = num;
  });
  return { type: "int32", values, ...nulls };
}

function int64Vector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const values = new BigInt64Array(end - start);
  // Number cells are written as two 32-bit halves: BigInt(number) per cell costs ~100 ns.
  const words = new Uint32Array(values.buffer);
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    if (typeof v === "bigint") {
      if (BigInt.asIntN(64, v) !== v)
        throw new RangeError(`${col.name} value ${v} does not fit int64`);
      values[i] = v;
      return;
    }
    // Numbers past 2^53 are already inexact; TableBuffer documents bigint for those.
    const num = v as number;
    if (!(num >= -(2 ** 63) && num < 2 ** 63))
      throw new RangeError(`${col.name} value ${num} does not fit int64`);
    const high = Math.floor(num / 0x1_0000_0000);
    words[2 * i] = num - high * 0x1_0000_0000; // little-endian: low word first
    words[2 * i + 1] = high; // negative high wraps to its two's complement word
  });
  return { type: "int64", values, ...nulls };
}

function float64Vector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const values = new Float64Array(end - start);
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    values[i] = Number(v);
  });
  return { type: "float64", values, ...nulls };
}

function boolVector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const values = new Uint8Array((end - start + 7) >> 3);
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    if (v === true) values[i >> 3]! |= 1 << (i & 7);
  });
  return { type: "bool", values, ...nulls };
}

/**
 * UTF-8 bytes and int32 offsets for a run of strings (null/undefined = empty). Fast path:
 * one native join + encode, valid when the text is ASCII (bytes = UTF-16 units); otherwise
 * each string is written at its offset.
 */
function encodeUtf8(strings: readonly (string | null | undefined)[]): {
  offsets: Int32Array;
  data: Uint8Array;
} {
  const offsets = new Int32Array(strings.length + 1);
  let units = 0;
  for (let i = 0; i < strings.length; i++) {
    units += strings[i]?.length ?? 0;
    offsets[i + 1] = units;
  }
  const joined = strings.join("");
  const ascii = Buffer.from(joined, "utf8");
  if (ascii.length === units) return { offsets, data: checkOffsets(asPlainBytes(ascii)) };
  const bytes = Buffer.allocUnsafe(ascii.length);
  let pos = 0;
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i];
    if (s) pos += bytes.write(s, pos, "utf8");
    offsets[i + 1] = pos;
  }
  return { offsets, data: checkOffsets(asPlainBytes(bytes)) };
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

function utf8Vector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const slice = cells.slice(start, end) as (string | null | undefined)[];
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    if (typeof v !== "string")
      throw new TypeError(`Expected ${col.name} to be a string at row ${start + i}`);
  });
  return { type: "utf8", ...encodeUtf8(slice), ...nulls };
}

function listUtf8Vector(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): ColumnVector {
  const listOffsets = new Int32Array(end - start + 1);
  const items: string[] = [];
  const nulls = eachCell(col, cells, start, end, (i, v) => {
    for (const item of v as string[]) items.push(item);
    listOffsets[i + 1] = items.length;
  });
  // A null row is an empty list: it ends where the row before it ended.
  for (let i = 1; i < listOffsets.length; i++)
    if (listOffsets[i]! < listOffsets[i - 1]!) listOffsets[i] = listOffsets[i - 1]!;
  return { type: "list_utf8", listOffsets, ...encodeUtf8(items), ...nulls };
}
