/**
 * coverage.py's SQLite data file (`.coverage`, coverage.py 5.0 and later). Schema 7 (every
 * release since 5.0) keeps executed lines as numbits in `line_bits`, arcs in `arc`, one row
 * per file and context, and metadata as key/value pairs in `meta`. The 5.0 alphas wrote
 * older schemas that are still found in repositories: one row per line in `line`
 * (schema 2) or numbits in `line_map` (schemas 4 to 6), and `meta` as columns. These
 * queries are the ones coverage.py's own `CoverageData` runs, over a database opened
 * through the untrusted-SQLite core.
 */
import type { Database } from "bun:sqlite";
import { parseFailed } from "../json-guard.ts";
import { openUntrustedSqlite, sqliteFailure, tableColumns } from "../sqlite/untrusted-database.ts";
import type { MeasuredFile } from "./measured-file.ts";
import { numbitsToLines } from "./numbits.ts";

export interface SqliteCoverage {
  schemaVersion: number;
  producerVersion: string | null;
  hasArcs: boolean;
  files: MeasuredFile[];
  contexts: number;
  measuredFiles: number;
}

export function readCoverageSqlite(
  bytes: Uint8Array,
  label: string,
  maxRows: number,
): SqliteCoverage {
  const { db, schema } = openUntrustedSqlite(bytes, label);
  try {
    return readOpen(db, schema, label, maxRows);
  } catch (error) {
    throw sqliteFailure(label, error);
  } finally {
    db.close();
  }
}

function readOpen(
  db: Database,
  schema: Parameters<typeof tableColumns>[1],
  label: string,
  maxRows: number,
): SqliteCoverage {
  const columns = (table: string) => tableColumns(db, schema, table, label);
  const need = (table: string, wanted: string[]) => {
    const have = columns(table);
    const missing = wanted.filter((c) => !have.has(c));
    if (missing.length > 0)
      throw parseFailed(
        label,
        `expected table ${table} with ` +
          `columns ${wanted.join(", ")}` +
          (have.size === 0
            ? " but the database has no such table"
            : ` but it lacks ${missing.join(", ")}`),
      );
  };
  need("coverage_schema", ["version"]);
  const versionRow = db.query("SELECT version FROM coverage_schema LIMIT 1").get() as {
    version: unknown;
  } | null;
  const schemaVersion =
    typeof versionRow?.version === "number" ? versionRow.version : Number(versionRow?.version);
  if (!Number.isInteger(schemaVersion))
    throw parseFailed(label, "coverage_schema holds no version");

  // meta: key/value rows since schema 5, one row of columns before.
  const meta = new Map<string, string>();
  const metaColumns = columns("meta");
  if (metaColumns.has("key") && metaColumns.has("value")) {
    for (const row of db.query("SELECT key, value FROM meta LIMIT 1000").all() as {
      key: unknown;
      value: unknown;
    }[])
      meta.set(String(row.key), String(row.value));
  } else if (metaColumns.size > 0) {
    const row = db
      .query(
        `SELECT ${[...metaColumns].filter((c) => /^[a-z_]+$/.test(c)).join(", ") || "1"} ` +
          `FROM meta LIMIT 1`,
      )
      .get() as Record<string, unknown> | null;
    for (const [k, v] of Object.entries(row ?? {})) meta.set(k, String(v));
  }
  const hasArcs = meta.get("has_arcs") === "1" || meta.get("has_arcs") === "true";

  need("file", ["id", "path"]);
  const paths = new Map<number, string>();
  for (const row of db.query(`SELECT id, path FROM file LIMIT ${maxRows + 1}`).all() as {
    id: number;
    path: unknown;
  }[]) {
    if (typeof row.path !== "string") throw parseFailed(label, `file ${row.id} has no path`);
    paths.set(row.id, row.path);
  }
  if (paths.size > maxRows) throw parseFailed(label, `more than ${maxRows} measured files`);
  const contexts = new Map<number, string>();
  if (columns("context").has("context")) {
    for (const row of db.query(`SELECT id, context FROM context LIMIT ${maxRows + 1}`).all() as {
      id: number;
      context: unknown;
    }[])
      contexts.set(row.id, String(row.context ?? ""));
  }

  const measured = new Map<string, MeasuredFile>();
  let rows = 0;
  const entry = (fileId: number, contextId: unknown): MeasuredFile => {
    const key = `${fileId}\u0000${contextId}`;
    let f = measured.get(key);
    if (!f) {
      const path = paths.get(fileId);
      if (path === undefined)
        throw parseFailed(label, `a row refers to file id ${fileId}, which the file table lacks`);
      // Schema 2 and later always write a context id; coverage.py's default context is "".
      const context =
        contextId === null || contextId === undefined ? null : contexts.get(Number(contextId));
      if (context === undefined)
        throw parseFailed(
          label,
          `a row refers to context id ${String(contextId)}, which the context table lacks`,
        );
      f = { path, context, lines: [], sorted: true, arcs: [] };
      measured.set(key, f);
    }
    return f;
  };
  const count = (n: number) => {
    rows += n;
    if (rows > maxRows) throw parseFailed(label, `more than ${maxRows} measured lines and arcs`);
  };

  const bitsTable = ["line_bits", "line_map"].find((t) => columns(t).has("numbits"));
  if (bitsTable !== undefined) {
    need(bitsTable, ["file_id", "context_id", "numbits"]);
    for (const row of db
      .query(`SELECT file_id, context_id, numbits FROM ${bitsTable} LIMIT ${maxRows + 1}`)
      .iterate() as Iterable<{ file_id: number; context_id: unknown; numbits: unknown }>) {
      if (!(row.numbits instanceof Uint8Array))
        throw parseFailed(label, `${bitsTable} holds numbits that are not a blob`);
      const lines = numbitsToLines(row.numbits);
      count(lines.length);
      const f = entry(row.file_id, row.context_id);
      // One row per file and context in a well-formed file; a second one must be merged.
      if (f.lines.length > 0) {
        f.sorted = false;
        for (const line of lines) f.lines.push(line);
      } else f.lines = lines;
    }
  } else if (columns("line").has("lineno")) {
    need("line", ["file_id", "context_id", "lineno"]);
    for (const row of db
      .query(`SELECT file_id, context_id, lineno FROM line LIMIT ${maxRows + 1}`)
      .iterate() as Iterable<{ file_id: number; context_id: unknown; lineno: unknown }>) {
      count(1);
      const f = entry(row.file_id, row.context_id);
      f.sorted = false;
      f.lines.push(row.lineno as number);
    }
  } else if (!hasArcs) {
    throw parseFailed(
      label,
      `schema ${schemaVersion} has no line table this reader knows (line_bits, line_map or line)`,
    );
  }
  if (columns("arc").size > 0) {
    need("arc", ["file_id", "context_id", "fromno", "tono"]);
    for (const row of db
      .query(`SELECT file_id, context_id, fromno, tono FROM arc LIMIT ${maxRows + 1}`)
      .iterate() as Iterable<{
      file_id: number;
      context_id: unknown;
      fromno: number;
      tono: number;
    }>) {
      count(1);
      entry(row.file_id, row.context_id).arcs.push([row.fromno, row.tono]);
    }
  }
  return {
    schemaVersion,
    producerVersion: meta.get("version") ?? null,
    hasArcs,
    files: [...measured.values()],
    contexts: contexts.size,
    measuredFiles: paths.size,
  };
}
