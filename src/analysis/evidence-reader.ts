/**
 * Reads selected columns of one evidence table across the generations of a snapshot
 * straight from Parquet, without an engine. Used by recipes whose answer is a small
 * aggregation of per-artifact derived tables (hotspots), so a CLI call never pays for
 * an engine start. Parts come through a `PartCache`: a long-lived process decodes each
 * part once; without one, parts are decoded for this call only.
 */
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { PartCache, type DecodedPart } from "./evidence-parts.ts";

export type ColumnValues = (string | number | null)[];

export async function readEvidenceColumns(
  snapshot: SnapshotHandle,
  table: EvidenceTableName,
  entries: CommitEntry[],
  columns: string[],
  parts: PartCache = new PartCache(0),
): Promise<{ rows: number; columns: Record<string, ColumnValues> }> {
  const out: Record<string, ColumnValues> = Object.fromEntries(columns.map((c) => [c, []]));
  let rows = 0;
  for (const part of await parts.partsOf(snapshot, table, entries, columns)) {
    for (const name of columns) {
      const values = plainColumn(part, name);
      const target = out[name]!;
      for (let i = 0; i < values.length; i++) target.push(values[i]!);
    }
    rows += part.rows;
  }
  return { rows, columns: out };
}

/**
 * One column of a part as plain values (null where the file lacks the column), computed once per
 * part.
 */
export function plainColumn(part: DecodedPart, name: string): readonly (string | number | null)[] {
  return part.derive(`plain:${name}`, () => {
    const vector = part.arrow.getChild(name);
    const values: (string | number | null)[] = new Array(part.rows);
    let bytes = part.rows * 8;
    for (let i = 0; i < part.rows; i++) {
      const v = vector ? plain(vector.get(i)) : null;
      values[i] = v;
      if (typeof v === "string") bytes += 24 + 2 * v.length;
    }
    return { value: values, bytes };
  });
}

function plain(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" || typeof value === "string") return value;
  return String(value);
}
