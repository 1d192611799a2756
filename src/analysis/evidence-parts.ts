/**
 * Decoded evidence parts, cached across calls and corpus commits.
 *
 * A part (one Parquet file of one table of one generation) is immutable: a new commit only
 * adds or supersedes generations, so a part decoded for one commit is the same for every
 * later one. A long-lived process (the MCP server) therefore keeps decoded parts keyed by
 * their path and decodes only parts it has not seen, i.e. the subject's own generations,
 * never the whole snapshot. Memory is bounded by a byte budget with least-recently-used
 * eviction; what was loaded, hit and evicted is counted so status can report it.
 *
 * `openPart` is the one place analysis reads a part's bytes (here and in the engine); the
 * bytes it returns were checked against the part's manifest (storage/evidence-part.ts).
 */
import type { Table } from "apache-arrow/Arrow.dom";
import {
  PROVENANCE_COLUMNS,
  TRACK_COLUMNS,
  type EvidenceTableName,
} from "../domain/evidence-schema.ts";
import { decodeVerifiedPart } from "../storage/evidence-part.ts";
import { initParquet, readParquetColumns } from "../storage/parquet.ts";
import type { EvidenceFile, SnapshotHandle } from "../storage/snapshot.ts";
import { COUNTER_COLUMNS, countersAsEvents } from "../storage/trace-counter-rows.ts";
import {
  asksForTrackColumns,
  trackIndexesOf,
  trackRowsOf,
  withTrackColumns,
  type TrackRows,
} from "../storage/track-columns.ts";

/**
 * The bytes of one evidence part, for any reader (decoded parts here, engine tables). Every
 * analysis read of a part goes through this function.
 */
export async function openPart(snapshot: SnapshotHandle, file: EvidenceFile): Promise<Uint8Array> {
  await initParquet();
  return snapshot.readFile(file);
}

/**
 * Reads and decodes one part, keeping only `columns`: those the file has, provenance, and,
 * for trace_events, the track columns joined from the generation's `tracks`.
 */
export async function decodePart(
  snapshot: SnapshotHandle,
  file: EvidenceFile,
  table: EvidenceTableName,
  columns: readonly string[],
): Promise<Table> {
  const readings = file.table === "trace_counters" && table === "trace_events";
  const joinTracks = table === "trace_events" && asksForTrackColumns(columns);
  const asked = joinTracks && !columns.includes("track_id") ? [...columns, "track_id"] : columns;
  const read = readings ? [...COUNTER_COLUMNS, ...asked.filter(isProvenance)] : asked;
  const decoded = await decodeVerifiedPart(
    file,
    await openPart(snapshot, file),
    (bytes) => readParquetColumns(bytes, read),
    (t) => t.numRows,
  );
  const tracks =
    readings || joinTracks ? await generationTracks(snapshot, file.generationId) : null;
  const arrow = readings
    ? countersAsEvents(decoded, asked, (index) => tracks!.idOfIndex.get(index) ?? null)
    : decoded;
  return joinTracks ? withTrackColumns(arrow, columns, tracks!.rows) : arrow;
}

const isProvenance = (name: string) => PROVENANCE_COLUMNS.some((c) => c.name === name);

/**
 * The parts `table` is read from: its own, and for trace_events the generations' counter readings
 * too (trace-counter-rows.ts), which readers see as trace_events parts.
 */
export function partFiles(
  snapshot: SnapshotHandle,
  table: EvidenceTableName,
  generations: Parameters<SnapshotHandle["tableFiles"]>[1],
): EvidenceFile[] {
  const files = snapshot.tableFiles(table, generations);
  return table === "trace_events"
    ? [...files, ...snapshot.tableFiles("trace_counters", generations)]
    : files;
}

/** A generation's `tracks`: each track's row by track_id, and its track_id by track_index. */
interface GenerationTracks {
  rows: TrackRows;
  idOfIndex: ReadonlyMap<number, string>;
}

/** Decoded `tracks` of recent generations (immutable, so kept by generation id; a few KB each). */
const tracksByGeneration = new Map<string, GenerationTracks>();

async function generationTracks(
  snapshot: SnapshotHandle,
  generationId: string,
): Promise<GenerationTracks> {
  const known = tracksByGeneration.get(generationId);
  if (known) return known;
  const entry = snapshot.commit.generations.find((g) => g.generation_id === generationId);
  const rows = new Map<string, (string | null)[]>();
  const idOfIndex = new Map<number, string>();
  for (const file of entry ? snapshot.tableFiles("tracks", [entry]) : []) {
    const bytes = await openPart(snapshot, file);
    const tracks = await decodeVerifiedPart(
      file,
      bytes,
      (b) => readParquetColumns(b, ["track_id", "track_index", ...TRACK_COLUMNS]),
      (t) => t.numRows,
    );
    trackRowsOf(tracks, rows);
    trackIndexesOf(tracks, idOfIndex);
  }
  if (tracksByGeneration.size >= 64)
    tracksByGeneration.delete(tracksByGeneration.keys().next().value!);
  const entryTracks = { rows, idOfIndex };
  tracksByGeneration.set(generationId, entryTracks);
  return entryTracks;
}

export interface DecodedPart {
  readonly path: string;
  readonly generationId: string;
  readonly table: EvidenceTableName;
  readonly rows: number;
  /** The part's columns, projected to those asked for so far (absent ones stay absent). */
  readonly arrow: Table;
  /** Columns asked for so far, including ones the file lacks (immutable, so still lacking). */
  readonly columns: ReadonlySet<string>;
  /**
   * Values computed once from this part (indexes, typed copies of columns), kept as long
   * as the part is. `build` returns the value and its approximate size in bytes.
   */
  derive<T>(key: string, build: () => { value: T; bytes: number }): T;
}

export interface PartCacheStats {
  budget_bytes: number;
  bytes: number;
  parts: number;
  loads: number;
  hits: number;
  evictions: number;
}

/** A part load, for tests and status: which generation's table was decoded. */
export interface PartLoad {
  generation_id: string;
  table: EvidenceTableName;
}

class CachedPart implements DecodedPart {
  readonly path: string;
  readonly generationId: string;
  readonly table: EvidenceTableName;
  readonly rows: number;
  readonly arrow: Table;
  readonly columns: ReadonlySet<string>;
  bytes: number;
  private readonly derived = new Map<string, unknown>();
  private readonly onGrow: (bytes: number) => void;

  constructor(
    file: EvidenceFile,
    table: EvidenceTableName,
    arrow: Table,
    columns: ReadonlySet<string>,
    onGrow: (bytes: number) => void,
  ) {
    this.path = file.path;
    this.generationId = file.generationId;
    this.table = table;
    this.rows = arrow.numRows;
    this.arrow = arrow;
    this.columns = columns;
    this.bytes = arrowBytes(arrow);
    this.onGrow = onGrow;
  }

  derive<T>(key: string, build: () => { value: T; bytes: number }): T {
    if (this.derived.has(key)) return this.derived.get(key) as T;
    const { value, bytes } = build();
    this.derived.set(key, value);
    this.bytes += bytes;
    this.onGrow(bytes);
    return value;
  }
}

export class PartCache {
  private readonly budget: number;
  private readonly parts = new Map<string, CachedPart>();
  private readonly pending = new Map<string, Promise<CachedPart>>();
  private total = 0;
  private counts = { loads: 0, hits: 0, evictions: 0 };
  private readonly loadLog: PartLoad[] = [];

  /** `budgetBytes` 0 keeps nothing between calls (a one-shot CLI process). */
  constructor(budgetBytes: number) {
    this.budget = budgetBytes;
  }

  /**
   * The decoded parts of `table` in the given generations, with at least `columns`.
   * Parts with no rows are skipped, as no reader needs them.
   */
  async partsOf(
    snapshot: SnapshotHandle,
    table: EvidenceTableName,
    generations: Parameters<SnapshotHandle["tableFiles"]>[1],
    columns: readonly string[],
  ): Promise<DecodedPart[]> {
    const out: DecodedPart[] = [];
    for (const file of partFiles(snapshot, table, generations)) {
      if (file.rows === 0) continue;
      out.push(await this.part(snapshot, file, table, columns));
    }
    // Eviction waits until every part of this call is held, so a call never evicts its own.
    this.evict(new Set(out.map((p) => p.path)));
    return out;
  }

  stats(): PartCacheStats {
    return {
      budget_bytes: this.budget,
      bytes: this.total,
      parts: this.parts.size,
      loads: this.counts.loads,
      hits: this.counts.hits,
      evictions: this.counts.evictions,
    };
  }

  /** Every part load since the cache was made, oldest first. */
  loads(): readonly PartLoad[] {
    return this.loadLog;
  }

  private async part(
    snapshot: SnapshotHandle,
    file: EvidenceFile,
    table: EvidenceTableName,
    columns: readonly string[],
  ): Promise<CachedPart> {
    // Concurrent calls (an MCP client may send several) wait for one decode of a part.
    const pending = this.pending.get(file.path);
    if (pending) {
      const part = await pending;
      if (columns.every((c) => part.columns.has(c))) return part;
    }
    const work = this.load(snapshot, file, table, columns);
    this.pending.set(file.path, work);
    try {
      return await work;
    } finally {
      if (this.pending.get(file.path) === work) this.pending.delete(file.path);
    }
  }

  private async load(
    snapshot: SnapshotHandle,
    file: EvidenceFile,
    table: EvidenceTableName,
    columns: readonly string[],
  ): Promise<CachedPart> {
    const cached = this.parts.get(file.path);
    if (cached && columns.every((c) => cached.columns.has(c))) {
      // Map order is recency order: re-insert on use.
      this.parts.delete(file.path);
      this.parts.set(file.path, cached);
      this.counts.hits += 1;
      return cached;
    }
    // A part asked for with more columns than it holds is decoded again with the union,
    // so columns asked for by different readers of one table accumulate.
    const wanted = new Set([...(cached?.columns ?? []), ...columns]);
    const arrow = await decodePart(snapshot, file, table, [...wanted]);
    if (cached) this.drop(file.path);
    const part = new CachedPart(file, table, arrow, wanted, (bytes) => {
      if (this.parts.get(file.path) === part) this.total += bytes;
    });
    this.counts.loads += 1;
    this.loadLog.push({ generation_id: file.generationId, table });
    if (this.loadLog.length > 10_000) this.loadLog.splice(0, this.loadLog.length - 10_000);
    this.parts.set(file.path, part);
    this.total += part.bytes;
    return part;
  }

  private evict(keep: ReadonlySet<string>): void {
    for (const [path] of this.parts) {
      if (this.total <= this.budget) return;
      if (keep.has(path)) continue;
      this.drop(path);
      this.counts.evictions += 1;
    }
    // What this call holds may alone exceed the budget; it is released after the call.
    if (this.total > this.budget) {
      for (const path of keep) {
        if (this.total <= this.budget) return;
        this.drop(path);
        this.counts.evictions += 1;
      }
    }
  }

  private drop(path: string): void {
    const part = this.parts.get(path);
    if (!part) return;
    this.parts.delete(path);
    this.total -= part.bytes;
  }
}

/** Bytes held by an Arrow table's buffers (children included). */
function arrowBytes(table: Table): number {
  let bytes = 0;
  for (const batch of table.batches) bytes += batch.data.byteLength;
  return bytes;
}
