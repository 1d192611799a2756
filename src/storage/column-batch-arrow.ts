/**
 * ColumnBatch → Arrow record batch with the stored column layout (the table's columns;
 * provenance rides in the schema's metadata), sharing the batch's typed arrays: no per-cell work.
 * The readers' and tests' Arrow view of what the parse worker writes as an IPC stream of its own
 * (arrow-ipc-stream.ts), which gives parquet-wasm the same table.
 */
import {
  Dictionary,
  Field,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table,
  makeData,
  type Data,
} from "apache-arrow/Arrow.dom";
import type { ColumnBatch } from "../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../domain/evidence-schema.ts";
import { evidenceArrowSchema, type Provenance } from "./parquet-arrow.ts";
import { vectorData } from "./vector-arrow.ts";

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

/** A part of column batches as an Arrow table (what arrow-ipc-stream.ts writes as a stream). */
export function columnBatchesToTable(
  table: EvidenceTableName,
  provenance: Provenance,
  batches: readonly ColumnBatch[],
): Table {
  return partTable(
    table,
    provenance,
    batches.map((b) => columnBatchToArrow(b, provenance)),
  );
}
