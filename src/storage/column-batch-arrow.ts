/**
 * ColumnBatch → Arrow record batch with the stored column layout (the table's columns;
 * provenance rides in the schema's metadata), sharing the batch's typed arrays: no per-cell work.
 */
import {
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  makeData,
  makeVector,
  type Data,
} from "apache-arrow/Arrow.dom";
import type { ColumnBatch, ColumnVector } from "../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../domain/evidence-schema.ts";
import { evidenceArrowSchema, type Provenance } from "./parquet-arrow.ts";

/** The list item field of stored list_utf8 columns (parquet-columns.ts builds the same). */
const LIST_ITEM = new Field("item", new Utf8(), false);

/**
 * The Arrow type of a utf8_dict column: dictionary ids are per column of the table (its
 * index), so every batch of a part has the same schema and an IPC stream of the part
 * carries each batch's dictionary as a replacement of the last.
 */
const dictionaryType = (column: number) => new Dictionary(new Utf8(), new Int32(), column);

function vectorData(
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

export function columnBatchToArrow(batch: ColumnBatch, provenance: Provenance): RecordBatch {
  const schema = EVIDENCE_SCHEMAS[batch.table];
  let arrowSchema = evidenceArrowSchema(schema, provenance);
  let dictionaries = false;
  const children: Data[] = schema.columns.map((col, column) => {
    const vector = batch.columns[col.name];
    if (!vector) throw new TypeError(`Batch of ${batch.table} lacks column ${col.name}`);
    const expected = col.type;
    const dictionary =
      (vector.type === "utf8_dict" && expected === "utf8") ||
      (vector.type === "list_utf8_dict" && expected === "list_utf8");
    dictionaries ||= dictionary;
    if (vector.type !== expected && !dictionary)
      throw new TypeError(
        `Expected ${batch.table}.${col.name} to be ${col.type} but the batch has ${vector.type}`,
      );
    return vectorData(col.name, vector, batch.length, col.nullable, column);
  });
  if (dictionaries)
    arrowSchema = new Schema(
      arrowSchema.fields.map((field, column) =>
        children[column]!.type instanceof Dictionary ||
        (children[column]!.type instanceof List &&
          children[column]!.type.children[0]!.type instanceof Dictionary)
          ? new Field(field.name, children[column]!.type, field.nullable, field.metadata)
          : field,
      ),
      arrowSchema.metadata,
    );
  const data = makeData({
    type: new Struct(arrowSchema.fields),
    length: batch.length,
    nullCount: 0,
    children,
  });
  return new RecordBatch(arrowSchema, data);
}

/**
 * Record batches of one part as one table. Its schema is its batches' (dictionary columns
 * included), which must agree: a part's rows come from one writer.
 */
export function partTable(
  table: EvidenceTableName,
  provenance: Provenance,
  batches: RecordBatch[],
): Table {
  const schema = batches[0]?.schema ?? evidenceArrowSchema(EVIDENCE_SCHEMAS[table], provenance);
  // Arrow's IPC writer ends its stream at a batch of another schema, dropping what follows.
  const layout = (s: Schema) => s.fields.map((f) => `${f.name}:${String(f.type)}`).join();
  const expected = layout(schema);
  for (const batch of batches)
    if (layout(batch.schema) !== expected)
      throw new TypeError(`The batches of a ${table} part do not share one schema`);
  return new Table(schema, batches);
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
