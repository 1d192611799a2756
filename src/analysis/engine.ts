/**
 * One in-process DuckDB-WASM database for analysis over a pinned snapshot.
 *
 * - Synchronous "blocking" node bundle: no worker thread, queries return directly.
 * - The EH (wasm exceptions) build, embedded with `type: "file"` so a compiled binary needs
 *   no files beside it; Bun's JSC supports wasm exceptions, so the MVP build is not shipped.
 * - DuckDB-WASM has no Parquet reader offline (it would fetch the extension), so tables
 *   arrive as Arrow IPC streams decoded by parquet-wasm. IPC bytes, not Table objects:
 *   DuckDB-WASM bundles its own apache-arrow 17 and rejects arrow 21 objects.
 * - External access is switched off and the configuration locked before any table or
 *   query exists: no extension loading, no file or network access from SQL.
 */
import * as duckdb from "@duckdb/duckdb-wasm/blocking";
import duckdbWasmPath from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm" with { type: "file" };
import { isReadStatement, leadingKeyword, type TableShape } from "./engine-ddl.ts";
import { loadTableFromStreams } from "./engine-load.ts";
import { tableToRows, toBoundParam, type ArrowTableLike } from "./engine-values.ts";

export type { TableShape } from "./engine-ddl.ts";

export interface EngineOptions {
  /** DuckDB `memory_limit` (wasm32 caps the heap at 4 GiB in any case). */
  readonly memoryLimit?: string;
}

/** Applied in order right after open; the last one freezes all settings. */
function lockdownStatements(memoryLimit: string): string[] {
  return [
    "SET autoload_known_extensions=false",
    "SET autoinstall_known_extensions=false",
    "SET allow_community_extensions=false",
    `SET memory_limit='${memoryLimit.replaceAll("'", "''")}'`,
    "SET threads=1",
    "SET enable_external_access=false",
    "SET lock_configuration=true",
  ];
}

export class AnalysisEngine {
  private readonly db: duckdb.DuckDBBindings;
  private readonly conn: duckdb.DuckDBConnection;
  private closed = false;

  private constructor(db: duckdb.DuckDBBindings, conn: duckdb.DuckDBConnection) {
    this.db = db;
    this.conn = conn;
  }

  static async open(options: EngineOptions = {}): Promise<AnalysisEngine> {
    // Both entries name the EH build: createDuckDB picks EH when the runtime has wasm
    // exceptions (Bun does) and the type requires an MVP entry.
    const bundle = { mainModule: duckdbWasmPath, mainWorker: "" };
    const db = await duckdb.createDuckDB(
      { mvp: bundle, eh: bundle },
      new duckdb.VoidLogger(),
      duckdb.NODE_RUNTIME,
    );
    await db.instantiate();
    db.open({
      query: { castBigIntToDouble: false, castDecimalToDouble: false },
      allowUnsignedExtensions: false,
    });
    const conn = db.connect();
    for (const sql of lockdownStatements(options.memoryLimit ?? "2GB")) conn.query(sql);
    return new AnalysisEngine(db, conn);
  }

  /**
   * (Re)creates table `name` from Arrow IPC streams (e.g. several Parquet files of one
   * evidence table), unioned by column name. `shape`, when given, anchors the column set
   * and types, so a table with no files, or with files that predate a column, still has
   * every column (missing ones read as NULL).
   */
  loadTable(name: string, ipcStreams: readonly Uint8Array[], shape?: TableShape): void {
    this.assertOpen();
    loadTableFromStreams(this.conn, name, ipcStreams, shape);
  }

  /**
   * Runs one read statement with bound parameters (`?` or `$1`) and returns plain rows:
   * bigint/HUGEINT become numbers when exact, else decimal strings; lists become arrays.
   */
  query(sql: string, params: readonly unknown[] = []): Record<string, unknown>[] {
    this.assertOpen();
    if (!isReadStatement(sql)) {
      throw new Error(
        `AnalysisEngine.query only runs read statements; ` +
          `refusing ${leadingKeyword(sql) || "an empty statement"}`,
      );
    }
    const bound = params.map(toBoundParam);
    const statement = this.conn.prepare(sql);
    try {
      return tableToRows(statement.query(...bound) as unknown as ArrowTableLike);
    } finally {
      statement.close();
    }
  }

  /**
   * Runs trusted SQL written by flameox itself (DDL such as views), without the read-only
   * check. Never pass text from a user or agent here; the lockdown still applies.
   */
  execute(sql: string): void {
    this.assertOpen();
    this.conn.query(sql);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.close();
    this.db.reset();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("AnalysisEngine is closed");
  }
}
