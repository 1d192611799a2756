/**
 * Provenance of evidence rows: which run, artifact, generation and extractor produced
 * them. It is one value per Parquet file, so files store it once, as JSON in the embedded
 * Arrow schema's metadata, and readers get the familiar provenance columns back as
 * constant columns built here, only for the columns they ask for. Files written before
 * this layout carry the columns themselves and are read as they are.
 */
import { type Field, RecordBatch, Schema, Struct, Table, makeData } from "apache-arrow/Arrow.dom";
import { arrowField, constantData } from "./parquet-columns.ts";
import { PROVENANCE_COLUMNS, type ColumnSpec } from "../domain/evidence-schema.ts";

import { SCHEMA_META_PROVENANCE, type Provenance } from "./evidence-metadata.ts";

export { SCHEMA_META_PROVENANCE, type Provenance } from "./evidence-metadata.ts";

const PROVENANCE_NAMES = PROVENANCE_COLUMNS.map((col) => col.name);

/** The provenance a decoded file's schema metadata carries (null: none, or not an object). */
export function provenanceOf(metadata: ReadonlyMap<string, string> | undefined): Provenance | null {
  const text = metadata?.get(SCHEMA_META_PROVENANCE);
  if (text === undefined) return null;
  const value = JSON.parse(text) as unknown;
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Provenance)
    : null;
}

/**
 * The requested columns (all the file's columns, provenance first, when `columns` is
 * absent), in request order: those the file has, plus provenance columns rebuilt from
 * `provenance` (by default the table's own schema metadata). Columns neither has are left
 * out rather than refused: files written before a nullable column was added are read with
 * today's column list, and callers union by name (the row count is kept either way).
 */
export function withProvenance(
  table: Table,
  columns?: readonly string[],
  provenance = provenanceOf(table.schema.metadata),
): Table {
  const present = new Set(table.schema.fields.map((f) => f.name));
  const wanted = columns ?? [
    ...(provenance ? PROVENANCE_NAMES.filter((name) => !present.has(name)) : []),
    ...table.schema.fields.map((f) => f.name),
  ];
  const missing = provenance
    ? wanted.filter((name) => !present.has(name) && provenance[name] !== undefined)
    : [];
  if (missing.length === 0)
    return columns ? table.select(wanted.filter((name) => present.has(name))) : table;
  const byName = new Map(table.schema.fields.map((f, i) => [f.name, i]));
  const fields: Field[] = [];
  const sources: (number | ColumnSpec)[] = [];
  for (const name of wanted) {
    const index = byName.get(name);
    if (index !== undefined) {
      fields.push(table.schema.fields[index]!);
      sources.push(index);
    } else if (missing.includes(name)) {
      const col = PROVENANCE_COLUMNS.find((c) => c.name === name)!;
      fields.push(arrowField(col));
      sources.push(col);
    }
  }
  const schema = new Schema(fields, table.schema.metadata);
  // An empty file decodes to a zero-row batch whose list columns lack their child, which
  // Arrow's IPC writer cannot re-encode: the schema alone says everything.
  if (table.numRows === 0) return new Table(schema);
  // Batch by batch, so the file's columns keep their chunks and constants match each batch's
  // length.
  const batches = table.batches.map((batch) => {
    const children = sources.map((source) =>
      typeof source === "number"
        ? batch.data.children[source]!
        : constantData(source, provenance![source.name]!, batch.numRows),
    );
    return new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }),
    );
  });
  return new Table(schema, batches);
}
