/**
 * ColumnBatch → Arrow record batch with the stored column layout (the table's columns;
 * provenance rides in the schema's metadata), sharing the batch's typed arrays: no per-cell work.
 */
import {
  Bool,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  RecordBatch,
  Struct,
  Utf8,
  makeData,
  type Data,
} from "apache-arrow/Arrow.dom";
import type { ColumnBatch, ColumnVector } from "../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../domain/evidence-schema.ts";
import { evidenceArrowSchema, type Provenance } from "./parquet-arrow.ts";

/** The list item field of stored list_utf8 columns (parquet-columns.ts builds the same). */
const LIST_ITEM = new Field("item", new Utf8(), false);

function vectorData(name: string, vector: ColumnVector, length: number, nullable: boolean): Data {
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

export function columnBatchToArrow(batch: ColumnBatch, provenance: Provenance): RecordBatch {
  const schema = EVIDENCE_SCHEMAS[batch.table];
  const arrowSchema = evidenceArrowSchema(schema, provenance);
  const children: Data[] = schema.columns.map((col) => {
    const vector = batch.columns[col.name];
    if (!vector) throw new TypeError(`Batch of ${batch.table} lacks column ${col.name}`);
    const expected = col.type;
    if (vector.type !== expected)
      throw new TypeError(
        `Expected ${batch.table}.${col.name} to be ${col.type} but the batch has ${vector.type}`,
      );
    return vectorData(col.name, vector, batch.length, col.nullable);
  });
  const data = makeData({
    type: new Struct(arrowSchema.fields),
    length: batch.length,
    nullCount: 0,
    children,
  });
  return new RecordBatch(arrowSchema, data);
}
