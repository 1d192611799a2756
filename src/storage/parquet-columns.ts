/**
 * Arrow types and data of evidence columns, for the readers' Arrow tables: a TableBuffer's
 * cells (converted by table-buffer-columns.ts), constant provenance columns.
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
import { cellVector } from "./table-buffer-columns.ts";
import { LIST_ITEM, vectorData } from "./vector-arrow.ts";

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

/** Cells [start, end) of one column as Arrow data (table-buffer-columns.ts converts them). */
export function columnData(
  col: ColumnSpec,
  cells: readonly CellValue[],
  start: number,
  end: number,
): Data {
  return vectorData(col.name, cellVector(col, cells, start, end), end - start, col.nullable, 0);
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
