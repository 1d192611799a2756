/**
 * What every evidence file's schema carries besides its columns: the table, its schema id and
 * the file's provenance (one value per file, stored once as JSON rather than as a column
 * repeated on every row; evidence-provenance.ts rebuilds the columns for readers). A module
 * without Arrow: the parse worker writes files through its own IPC writer
 * (arrow-ipc-stream.ts), and the readers' Arrow schemas use the same keys.
 */
import {
  PROVENANCE_COLUMNS,
  type ColumnSpec,
  type TableSchema,
} from "../domain/evidence-schema.ts";

/** Schema-level metadata keys (kept in the Parquet file's embedded Arrow schema). */
export const SCHEMA_META_TABLE = "flameox.table";
export const SCHEMA_META_SCHEMA_ID = "flameox.schema_id";
/** Schema-metadata key of a file's provenance (a JSON object, one value per provenance column). */
export const SCHEMA_META_PROVENANCE = "flameox.provenance";

export type Provenance = Record<string, string | number>;

/** The schema metadata of a file of `schema` with `provenance`, in its stored order. */
export function evidenceSchemaMetadata(
  schema: TableSchema,
  provenance: Provenance,
): [string, string][] {
  checkProvenance(provenance);
  return [
    [SCHEMA_META_TABLE, schema.name],
    [SCHEMA_META_SCHEMA_ID, schema.schemaId],
    [SCHEMA_META_PROVENANCE, JSON.stringify(provenance)],
  ];
}

/** Every provenance column present with a value of its type, and nothing else. */
export function checkProvenance(provenance: Provenance): void {
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
