/**
 * The DuckDB-WASM engine of a long-lived process, for recipes that need SQL (recursive or
 * correlated queries over OTLP spans). It outlives corpus commits: generations are
 * immutable and a commit only adds or supersedes them, so each generation's table is
 * loaded once, by itself, and a query sees the subject's generations through a view over
 * their tables. A new commit costs only the generations it added, and only when a query
 * asks for them; a query about an older artifact loads nothing.
 *
 * Only the columns the queries read are loaded. Loaded tables are bounded by a byte budget
 * (least recently used dropped first), and the engine itself is closed after it has been
 * idle a while, since DuckDB-WASM holds a few hundred MB while open. Queries are named,
 * versioned constants with bound parameters; no caller ever supplies SQL text.
 */
import {
  EVIDENCE_SCHEMAS,
  PROVENANCE_COLUMNS,
  type ColumnSpec,
  type EvidenceTableName,
} from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import { parquetToIpcStream } from "../storage/parquet.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { quoteIdent } from "./engine-ddl.ts";
import type { AnalysisEngine } from "./engine.ts";
import { openPart } from "./evidence-parts.ts";

export interface EngineStats {
  open: boolean;
  budget_bytes: number;
  bytes: number;
  tables: number;
  /** Generation tables loaded since start (each generation's table once while cached). */
  loads: number;
  evictions: number;
  /** Times the engine was started (again after an idle close). */
  starts: number;
}

interface LoadedTable {
  readonly name: string;
  readonly bytes: number;
}

/** Closes an idle engine after this long: its memory is worth more than a restart (~2 s). */
const IDLE_CLOSE_MS = 5 * 60_000;

export class EvidenceEngine {
  private engine: AnalysisEngine | null = null;
  private opening: Promise<AnalysisEngine> | null = null;
  private readonly budget: number;
  /** `${table}|${generation}` -> its engine table, in recency order. */
  private readonly tables = new Map<string, LoadedTable>();
  private bytes = 0;
  private counts = { loads: 0, evictions: 0, starts: 0 };
  private nextTable = 0;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly idleMs: number;

  constructor(options: { budgetBytes: number; idleCloseMs?: number }) {
    this.budget = options.budgetBytes;
    this.idleMs = options.idleCloseMs ?? IDLE_CLOSE_MS;
  }

  /**
   * Makes the view `table` hold exactly the rows of the given generations, limited to
   * `columns` (all of the table's when omitted). Loads only generations not yet loaded.
   */
  async ensureTable(
    snapshot: SnapshotHandle,
    table: EvidenceTableName,
    generations: CommitEntry[],
    columns?: readonly string[],
  ): Promise<void> {
    const engine = await this.open();
    const specs = columnSpecs(table, columns);
    const names: string[] = [];
    for (const generation of generations)
      names.push(await this.generationTable(engine, snapshot, table, generation, specs));
    if (names.length === 0) {
      // No generation: the view still has the table's columns, and no rows.
      const empty = `${table}__empty`;
      engine.loadTable(empty, [], specs);
      names.push(empty);
    }
    const select = names.map((n) => `SELECT * FROM ${quoteIdent(n)}`).join(" UNION ALL BY NAME ");
    engine.execute(`CREATE OR REPLACE VIEW ${quoteIdent(table)} AS ${select}`);
    this.evict(new Set(names));
  }

  query(_name: string, sql: string, params: unknown[]): Record<string, unknown>[] {
    if (!this.engine) throw new Error("EvidenceEngine.query before ensureTable");
    this.touch();
    return this.engine.query(sql, params);
  }

  stats(): EngineStats {
    return {
      open: this.engine !== null,
      budget_bytes: this.budget,
      bytes: this.bytes,
      tables: this.tables.size,
      ...this.counts,
    };
  }

  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.engine?.close();
    this.engine = null;
    this.tables.clear();
    this.bytes = 0;
  }

  private async open(): Promise<AnalysisEngine> {
    this.touch();
    if (this.engine) return this.engine;
    this.opening ??= (async () => {
      // DuckDB-WASM is loaded only when a recipe needs an engine.
      const { AnalysisEngine } = await import("./engine.ts");
      const engine = await AnalysisEngine.open();
      this.engine = engine;
      this.counts.starts += 1;
      return engine;
    })().finally(() => (this.opening = null));
    return this.opening;
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    this.idleTimer.unref?.();
  }

  private async generationTable(
    engine: AnalysisEngine,
    snapshot: SnapshotHandle,
    table: EvidenceTableName,
    generation: CommitEntry,
    specs: readonly ColumnSpec[],
  ): Promise<string> {
    const key = `${table}|${generation.generation_id}|${specs.map((c) => c.name).join(",")}`;
    const loaded = this.tables.get(key);
    if (loaded) {
      this.tables.delete(key);
      this.tables.set(key, loaded);
      return loaded.name;
    }
    const columns = specs.map((c) => c.name);
    const streams: Uint8Array[] = [];
    for (const file of snapshot.tableFiles(table, [generation])) {
      if (file.rows > 0) streams.push(parquetToIpcStream(await openPart(snapshot, file), columns));
    }
    const name = `${table}__g${this.nextTable++}`;
    engine.loadTable(name, streams, specs);
    const bytes = streams.reduce((n, s) => n + s.byteLength, 0);
    this.tables.set(key, { name, bytes });
    this.bytes += bytes;
    this.counts.loads += 1;
    return name;
  }

  private evict(keep: ReadonlySet<string>): void {
    for (const [key, loaded] of this.tables) {
      if (this.bytes <= this.budget) return;
      if (keep.has(loaded.name)) continue;
      this.engine?.execute(`DROP TABLE IF EXISTS ${quoteIdent(loaded.name)}`);
      this.tables.delete(key);
      this.bytes -= loaded.bytes;
      this.counts.evictions += 1;
    }
  }
}

/** The table's stored columns (provenance and its own), limited to `columns` when given. */
function columnSpecs(table: EvidenceTableName, columns?: readonly string[]): ColumnSpec[] {
  const all = [...PROVENANCE_COLUMNS, ...EVIDENCE_SCHEMAS[table].columns];
  if (!columns) return all;
  const wanted = new Set(columns);
  return all.filter((c) => wanted.has(c.name));
}
