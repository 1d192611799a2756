/**
 * One DuckDB-WASM engine bound to one pinned snapshot. Tables are loaded lazily, only
 * the generations and tables a recipe needs, decoded from Parquet by parquet-wasm (the
 * engine has no Parquet reader offline and must never try to fetch one). Queries are
 * named, versioned constants with bound parameters; no caller ever supplies SQL text.
 */
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import { initParquet, parquetToIpcStream } from "../storage/parquet.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { AnalysisEngine } from "./engine.ts";

export class SnapshotEngine {
  readonly snapshot: SnapshotHandle;
  private readonly engine: AnalysisEngine;
  private readonly loaded = new Map<EvidenceTableName, string>();

  private constructor(engine: AnalysisEngine, snapshot: SnapshotHandle) {
    this.engine = engine;
    this.snapshot = snapshot;
  }

  static async open(snapshot: SnapshotHandle): Promise<SnapshotEngine> {
    await initParquet();
    return new SnapshotEngine(await AnalysisEngine.open(), snapshot);
  }

  /**
   * Makes `table` hold exactly the rows of the given generations. Reloads when a
   * different generation set is asked for, so one engine can serve many subjects.
   */
  async ensureTable(table: EvidenceTableName, generations: CommitEntry[]): Promise<void> {
    const key = generations.map((g) => g.generation_id).sort().join(",");
    if (this.loaded.get(table) === key) return;
    const streams = this.snapshot.tableFiles(table, generations).filter((f) => f.rows > 0).map((f) => parquetToIpcStream(this.snapshot.readFile(f)));
    this.engine.loadTable(table, streams, EVIDENCE_SCHEMAS[table]);
    this.loaded.set(table, key);
  }

  query(_name: string, sql: string, params: unknown[]): Record<string, unknown>[] {
    return this.engine.query(sql, params);
  }

  close(): void {
    this.engine.close();
  }
}
