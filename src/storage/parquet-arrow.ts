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
import {
  PROVENANCE_COLUMNS,
  type ColumnSpec,
  type TableSchema,
} from "../domain/evidence-schema.ts";
import type { TableBuffer } from "../domain/table-buffer.ts";
import { SCHEMA_META_PROVENANCE, type Provenance } from "./evidence-provenance.ts";
import { arrowField, columnData } from "./parquet-columns.ts";

/** Rows per record batch: bounds temporary buffers and keeps utf8 offsets far from 2^31. */
const BATCH_ROWS = 1 << 16;

/** Schema-level metadata keys (kept in the Parquet file's embedded Arrow schema). */
export const SCHEMA_META_TABLE = "flameox.table";
export const SCHEMA_META_SCHEMA_ID = "flameox.schema_id";

export type { Provenance } from "./evidence-provenance.ts";

export function evidenceArrowSchema(schema: TableSchema, provenance: Provenance): Schema {
  checkProvenance(provenance);
  const fields: Field[] = schema.columns.map(arrowField);
  const metadata = new Map([
    [SCHEMA_META_TABLE, schema.name],
    [SCHEMA_META_SCHEMA_ID, schema.schemaId],
    [SCHEMA_META_PROVENANCE, JSON.stringify(provenance)],
  ]);
  return new Schema(fields, metadata);
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

function checkProvenance(provenance: Provenance): void {
  for (const col of PROVENANCE_COLUMNS) {
    const value = provenance[col.name];
    if (value === undefined) throw new TypeError(`Provenance is missing ${col.name}`);
    checkProvenanceType(col, value);
  }
  for (const key of Object.keys(provenance)) {
    if (!PROVENANCE_COLUMNS.some((col) => col.name === key))
      throw new TypeError(`Unknown provenance column ${key}`);
  }
}

function checkProvenanceType(col: ColumnSpec, value: string | number): void {
  const ok =
    col.type === "int32"
      ? typeof value === "number" && (value | 0) === value
      : typeof value === "string";
  if (!ok)
    throw new TypeError(
      `Provenance ${col.name} must be ${col.type === "int32" ? "an int32" : "a string"}`,
    );
}
