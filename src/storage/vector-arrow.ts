/**
 * A column vector (domain/column-batch.ts) as Arrow data of the stored column type, sharing its
 * typed arrays: no per-cell work. Dictionary vectors become Dictionary<Int32, Utf8> data whose
 * dictionary id is the column's index in its table, so every batch of a part has one schema.
 */
import {
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Utf8,
  makeData,
  makeVector,
  type Data,
} from "apache-arrow/Arrow.dom";
import type { ColumnVector } from "../domain/column-batch.ts";

/** The item field of stored list_utf8 columns (their strings are never null). */
export const LIST_ITEM = new Field("item", new Utf8(), false);

/**
 * The Arrow type of a utf8_dict column: dictionary ids are per column of the table (its
 * index), so every batch of a part has the same schema and an IPC stream of the part
 * carries each batch's dictionary as a replacement of the last.
 */
const dictionaryType = (column: number) => new Dictionary(new Utf8(), new Int32(), column);

export function vectorData(
  name: string,
  vector: ColumnVector,
  length: number,
  nullable: boolean,
  column: number,
): Data {
  if (vector.nullCount > 0 && !nullable)
    throw new TypeError(`Expected ${name} to be set but ${vector.nullCount} rows are null`);
  const nulls = { nullCount: vector.nullCount, nullBitmap: vector.valid ?? undefined };
  switch (vector.type) {
    case "int32":
      return makeData({ type: new Int32(), length, ...nulls, data: vector.values });
    case "int64":
      return makeData({ type: new Int64(), length, ...nulls, data: vector.values });
    case "float64":
      return makeData({ type: new Float64(), length, ...nulls, data: vector.values });
    case "bool":
      return makeData({ type: new Bool(), length, ...nulls, data: vector.values });
    case "utf8":
      return makeData({
        type: new Utf8(),
        length,
        ...nulls,
        valueOffsets: vector.offsets,
        data: vector.data,
      });
    case "utf8_dict":
      return makeData({
        type: dictionaryType(column),
        length,
        ...nulls,
        data: vector.indices,
        dictionary: utf8Dictionary(vector),
      });
    case "list_utf8_dict": {
      const type = dictionaryType(column);
      const child = makeData({
        type,
        length: vector.listOffsets[length]!,
        nullCount: 0,
        data: vector.indices,
        dictionary: utf8Dictionary(vector),
      });
      return makeData({
        type: new List(new Field("item", type, false)),
        length,
        ...nulls,
        valueOffsets: vector.listOffsets,
        child,
      });
    }
    case "list_utf8": {
      const items = vector.listOffsets[length]!;
      const child = makeData({
        type: new Utf8(),
        length: items,
        nullCount: 0,
        valueOffsets: vector.offsets,
        data: vector.data,
      });
      return makeData({
        type: new List(LIST_ITEM),
        length,
        ...nulls,
        valueOffsets: vector.listOffsets,
        child,
      });
    }
  }
}

/** A dictionary vector's strings (its batch's own dictionary) as an Arrow Utf8 vector. */
function utf8Dictionary(vector: { dictOffsets: Int32Array; dictData: Uint8Array }) {
  return makeVector(
    makeData({
      type: new Utf8(),
      length: vector.dictOffsets.length - 1,
      nullCount: 0,
      valueOffsets: vector.dictOffsets,
      data: vector.dictData,
    }),
  );
}
