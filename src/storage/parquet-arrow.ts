/**
 * TableBuffer -> Arrow table with the stored column layout: the evidence schema's columns,
 * each with its exact Arrow type (strings as plain Utf8; column batches may carry a string
 * column as Dictionary<Int32, Utf8> instead, column-batch-arrow.ts, which Parquet stores
 * as the same string column and readers get back as strings). Provenance (run, artifact,
 * generation, extractor) is one value per file, so it is stored once, in the schema's
 * metadata, not as a column repeated on every row: those ~190 bytes per row used to be half
 * of what parquet-wasm encoded for a trace event. Readers add the columns back (evidence-provenance.ts).
 */
import { type Field, RecordBatch, Schema, Struct, Table, makeData } from "apache-arrow/Arrow.dom";
import type { TableSchema } from "../domain/evidence-schema.ts";
import type { TableBuffer } from "../domain/table-buffer.ts";
import { evidenceSchemaMetadata, type Provenance } from "./evidence-metadata.ts";
import { arrowField, columnData } from "./parquet-columns.ts";

/** Rows per record batch: bounds temporary buffers and keeps utf8 offsets far from 2^31. */
const BATCH_ROWS = 1 << 16;

export { SCHEMA_META_SCHEMA_ID, SCHEMA_META_TABLE } from "./evidence-metadata.ts";
export type { Provenance } from "./evidence-metadata.ts";

export function evidenceArrowSchema(schema: TableSchema, provenance: Provenance): Schema {
  const fields: Field[] = schema.columns.map(arrowField);
  return new Schema(fields, new Map(evidenceSchemaMetadata(schema, provenance)));
}

/** Converts rows [range.start, range.end) of the buffer (all rows by default). */
export function tableBufferToArrow(
  buffer: TableBuffer,
  provenance: Provenance,
  range = { start: 0, end: buffer.rowCount },
): Table {
  const schema = evidenceArrowSchema(buffer.schema, provenance);
  const first = Math.max(0, range.start);
  const total = Math.min(buffer.rowCount, range.end);
  const columns = buffer.schema.columns.map((col) => buffer.column(col.name));
  const batches: RecordBatch[] = [];
  // An empty buffer still yields one zero-row batch so the file carries the typed schema.
  for (
    let start = first;
    start < total || (total <= first && start === first);
    start += BATCH_ROWS
  ) {
    const end = Math.max(start, Math.min(total, start + BATCH_ROWS));
    const children = buffer.schema.columns.map((col, i) =>
      columnData(col, columns[i]!, start, end),
    );
    const data = makeData({
      type: new Struct(schema.fields),
      length: end - start,
      nullCount: 0,
      children,
    });
    batches.push(new RecordBatch(schema, data));
    if (total <= first) break;
  }
  return new Table(schema, batches);
}
