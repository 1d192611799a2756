/**
 * A run's measurements grouped by what they measure (name, unit, aggregation): count,
 * min, max and mean of each group. The rows are those `measurements query --run-id`
 * returns (warm-ups excluded), summed in the same order, so a reader can recompute every
 * figure from that command's pages and get the same numbers, to the last bit.
 */
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { measurementOrder } from "./query-measurements.ts";
import { measurementGenerations, readMeasurements } from "./read-measurements.ts";

export interface MeasurementGroup {
  name: string;
  unit: string;
  aggregation: string;
  count: number;
  min: number;
  max: number;
  mean: number;
}

export interface MeasurementGroups {
  /** Measurements of the run (warm-ups excluded). */
  total: number;
  /**
   * Distinct (name, unit, aggregation) groups, of which `groups` holds the first `maxGroups` by
   * name.
   */
  groups_total: number;
  groups: MeasurementGroup[];
  truncated: boolean;
}

export async function measurementGroups(
  snapshot: SnapshotHandle,
  runId: string,
  maxGroups: number,
): Promise<MeasurementGroups | null> {
  const generations = measurementGenerations(snapshot, { runIds: [runId] });
  if (generations.length === 0) return null;
  const rows = (await readMeasurements(snapshot, generations))
    .filter((r) => r.run_id === runId && !r.is_warmup)
    .sort(measurementOrder);
  const byKey = new Map<string, MeasurementGroup & { sum: number }>();
  for (const r of rows) {
    const key = JSON.stringify([r.name, r.unit, r.aggregation]);
    const g = byKey.get(key);
    if (!g)
      byKey.set(key, {
        name: r.name,
        unit: r.unit,
        aggregation: r.aggregation,
        count: 1,
        min: r.value,
        max: r.value,
        mean: 0,
        sum: r.value,
      });
    else {
      g.count++;
      g.sum += r.value;
      if (r.value < g.min) g.min = r.value;
      if (r.value > g.max) g.max = r.value;
    }
  }
  const all = [...byKey.values()]
    .map(({ sum, ...g }) => ({ ...g, mean: sum / g.count }))
    .sort(
      (a, b) => cmp(a.name, b.name) || cmp(a.unit, b.unit) || cmp(a.aggregation, b.aggregation),
    );
  return {
    total: rows.length,
    groups_total: all.length,
    groups: all.slice(0, maxGroups),
    truncated: all.length > maxGroups,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
