/**
 * Builds one DuckDB table from several Arrow IPC streams (the Parquet files of one evidence
 * table), unioned by column name.
 *
 * A stream whose columns equal the table's, in order, is appended directly: the only
 * copy is DuckDB's own ingest. Any other stream (an older file lacking a newer column,
 * a reordered one) goes through a staging table and `INSERT ... BY NAME`, after the
 * target has gained any column it lacked. Measured on 1M rows, direct append ~1 s versus
 * ~3.5 s for staging + `CREATE TABLE AS ... UNION ALL BY NAME`.
 */
import type { DuckDBConnection } from "@duckdb/duckdb-wasm/blocking";
import { RecordBatchReader } from "apache-arrow/Arrow.dom";
import { columnDefinitions, quoteIdent, type TableShape } from "./engine-ddl.ts";

const STAGE = "__flameox_stage";
/** Tables are built under this name and renamed at the end, so a failed load leaves the old one. */
const BUILD = "__flameox_build";

export function loadTableFromStreams(
  conn: DuckDBConnection,
  name: string,
  streams: readonly Uint8Array[],
  shape?: TableShape,
): void {
  if (streams.length === 0 && !shape)
    throw new TypeError(`Cannot load table ${name} from no streams and no shape`);
  const build = quoteIdent(BUILD);
  conn.query(`DROP TABLE IF EXISTS ${build}`);
  try {
    let rest = streams;
    if (shape) conn.query(`CREATE TABLE ${build} (${columnDefinitions(shape)})`);
    else {
      // No shape: the first file defines the table.
      conn.insertArrowFromIPCStream(streams[0]!, { name: BUILD, create: true });
      rest = streams.slice(1);
    }
    let columns = tableColumns(conn, BUILD);
    for (const bytes of rest) {
      if (
        sameNames(
          streamColumnNames(bytes),
          columns.map((c) => c.name),
        )
      ) {
        conn.insertArrowFromIPCStream(bytes, { name: BUILD, create: false });
      } else {
        appendByName(conn, BUILD, bytes, columns);
        columns = tableColumns(conn, BUILD);
      }
    }
    conn.query(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
    conn.query(`ALTER TABLE ${build} RENAME TO ${quoteIdent(name)}`);
  } finally {
    conn.query(`DROP TABLE IF EXISTS ${build}`);
  }
}

function appendByName(
  conn: DuckDBConnection,
  name: string,
  bytes: Uint8Array,
  columns: readonly Column[],
): void {
  const stage = quoteIdent(STAGE);
  conn.query(`DROP TABLE IF EXISTS ${stage}`);
  try {
    conn.insertArrowFromIPCStream(bytes, { name: STAGE, create: true });
    const known = new Set(columns.map((c) => c.name));
    for (const col of tableColumns(conn, STAGE)) {
      if (!known.has(col.name))
        conn.query(
          `ALTER TABLE ${quoteIdent(name)} ADD COLUMN ${quoteIdent(col.name)} ${col.type}`,
        );
    }
    conn.query(`INSERT INTO ${quoteIdent(name)} BY NAME SELECT * FROM ${stage}`);
  } finally {
    conn.query(`DROP TABLE IF EXISTS ${stage}`);
  }
}

interface Column {
  readonly name: string;
  readonly type: string;
}

function tableColumns(conn: DuckDBConnection, table: string): Column[] {
  const statement = conn.prepare(
    "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND " +
      "schema_name = 'main' ORDER BY column_index",
  );
  try {
    const result = statement.query(table);
    const names = result.getChild("column_name")!;
    const types = result.getChild("data_type")!;
    return Array.from({ length: result.numRows }, (_, i) => ({
      name: String(names.get(i)),
      type: String(types.get(i)),
    }));
  } finally {
    statement.close();
  }
}

/** Column names of an IPC stream, from its schema message only. */
function streamColumnNames(bytes: Uint8Array): string[] {
  const reader = RecordBatchReader.from(bytes);
  reader.open();
  return reader.schema.fields.map((f) => f.name);
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}
