/**
 * Typed rows of the `measurements` table for a set of generations of one pinned snapshot,
 * read straight from Parquet (no engine start). When the same artifact was extracted more
 * than once, only the newest generation per (artifact, extractor) counts, so a re-import
 * never doubles the samples.
 */
import type { CommitEntry } from "../../storage/corpus-records.ts";
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { readEvidenceColumns } from "../evidence-reader.ts";

export interface MeasurementRow {
  run_id: string;
  artifact_id: string;
  generation_id: string;
  measurement_id: string;
  name: string;
  value: number;
  value_kind: "int" | "float";
  unit: string;
  aggregation: string;
  scope: string;
  trial_id: string | null;
  worker_id: string | null;
  worker_run_index: number | null;
  value_index: number | null;
  loop_count: number | null;
  is_warmup: boolean;
  block_id: string | null;
  phase: string | null;
  dimensions: Record<string, unknown>;
}

const COLUMNS = [
  "run_id",
  "artifact_id",
  "evidence_generation_id",
  "measurement_id",
  "name",
  "value_int",
  "value_float",
  "unit",
  "aggregation",
  "scope",
  "trial_id",
  "worker_id",
  "worker_run_index",
  "value_index",
  "loop_count",
  "is_warmup",
  "block_id",
  "phase",
  "dimensions_json",
];

/**
 * Generations of the snapshot that hold measurements, newest per artifact and extractor, optionally
 * of some runs only.
 */
export function measurementGenerations(
  snapshot: SnapshotHandle,
  filter: { runIds?: readonly string[]; artifactId?: string } = {},
): CommitEntry[] {
  const latest = new Map<string, CommitEntry>();
  for (const g of snapshot.commit.generations) {
    if (g.tables.measurements === undefined) continue;
    if (filter.runIds && !g.run_ids.some((r) => filter.runIds!.includes(r))) continue;
    if (filter.artifactId && !g.artifact_ids.includes(filter.artifactId)) continue;
    latest.set(`${g.run_ids.join(",")}|${g.artifact_ids.join(",")}|${g.extractor}`, g);
  }
  return [...latest.values()];
}

export async function readMeasurements(
  snapshot: SnapshotHandle,
  generations: CommitEntry[],
): Promise<MeasurementRow[]> {
  const { rows, columns: c } = await readEvidenceColumns(
    snapshot,
    "measurements",
    generations,
    COLUMNS,
  );
  const out: MeasurementRow[] = [];
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  for (let i = 0; i < rows; i++) {
    const vi = num(c.value_int![i]);
    const warm = c.is_warmup![i] as unknown;
    out.push({
      run_id: c.run_id![i] as string,
      artifact_id: c.artifact_id![i] as string,
      generation_id: c.evidence_generation_id![i] as string,
      measurement_id: c.measurement_id![i] as string,
      name: c.name![i] as string,
      value: vi ?? (num(c.value_float![i]) as number),
      value_kind: vi === null ? "float" : "int",
      unit: c.unit![i] as string,
      aggregation: c.aggregation![i] as string,
      scope: c.scope![i] as string,
      trial_id: c.trial_id![i] as string | null,
      worker_id: c.worker_id![i] as string | null,
      worker_run_index: num(c.worker_run_index![i]),
      value_index: num(c.value_index![i]),
      loop_count: num(c.loop_count![i]),
      // The column reader stringifies booleans.
      is_warmup: warm === true || warm === "true",
      block_id: c.block_id![i] as string | null,
      phase: c.phase![i] as string | null,
      dimensions: c.dimensions_json![i] ? JSON.parse(c.dimensions_json![i] as string) : {},
    });
  }
  return out;
}
