/**
 * Reads selected columns of one evidence table across the generations of a snapshot
 * straight from Parquet, without an engine. Used by recipes whose answer is a small
 * aggregation of per-artifact derived tables (hotspots), so a CLI call never pays for
 * an engine start.
 */
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import { initParquet, readParquet } from "../storage/parquet.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";

export type ColumnValues = (string | number | null)[];

export async function readEvidenceColumns(
  snapshot: SnapshotHandle,
  table: EvidenceTableName,
  entries: CommitEntry[],
  columns: string[],
): Promise<{ rows: number; columns: Record<string, ColumnValues> }> {
  await initParquet();
  const out: Record<string, ColumnValues> = Object.fromEntries(columns.map((c) => [c, []]));
  let rows = 0;
  for (const file of snapshot.tableFiles(table, entries)) {
    if (file.rows === 0) continue;
    const arrowTable = readParquet(snapshot.readFile(file), columns);
    for (const name of columns) {
      const vector = arrowTable.getChild(name);
      const target = out[name]!;
      if (!vector) {
        for (let i = 0; i < arrowTable.numRows; i++) target.push(null);
        continue;
      }
      for (let i = 0; i < arrowTable.numRows; i++) target.push(plain(vector.get(i)));
    }
    rows += arrowTable.numRows;
  }
  return { rows, columns: out };
}

function plain(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" || typeof value === "string") return value;
  return String(value);
}
