/**
 * The whole-stack view of a subject's profile evidence for one metric: every stored stack
 * (root → leaf frame ids) with its summed value and sample count, and the frames they
 * name. Flamegraphs, profile diffs and exports all start from this view, so they agree
 * with each other and with hotspots (which sum the same stacks per frame).
 */
import { FlameoxError } from "../domain/errors.ts";
import { defaultFrameMetric, FRAME_METRICS, type FrameMetric } from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import { readParquet } from "../storage/parquet.ts";
import { openPart } from "./evidence-parts.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type FrameInfo, readFrames } from "./hotspots.ts";
import { listUtf8Rows } from "./list-columns.ts";
import type { Subject } from "./subject.ts";

export interface ProfileStack {
  frameIds: string[];
  value: number;
  samples: number;
}

export interface ProfileStacks {
  metric: FrameMetric | null;
  unit: string;
  metricsAvailable: FrameMetric[];
  frames: ReadonlyMap<string, FrameInfo>;
  stacks: ProfileStack[];
  totalValue: number;
  totalSamples: number;
  generations: CommitEntry[];
}

/** Every metric's stacks of a subject, read once; `selectView` picks one metric from it. */
export interface StackSet {
  byMetric: Map<string, Map<string, ProfileStack>>;
  generations: CommitEntry[];
}

export async function readStackSet(snapshot: SnapshotHandle, subject: Subject): Promise<StackSet> {
  const generations = subject.generations.filter((g) => g.tables.stacks !== undefined);
  const byMetric = new Map<string, Map<string, ProfileStack>>();
  for (const file of snapshot.tableFiles("stacks", generations)) {
    if (file.rows === 0) continue;
    const table = readParquet(await openPart(snapshot, file), [
      "metric",
      "frame_ids",
      "sample_count",
      "duration_ns",
    ]);
    const metrics = table.getChild("metric")!.toArray() as string[];
    const counts = table.getChild("sample_count")!.toArray() as BigInt64Array | Float64Array;
    const values = table.getChild("duration_ns")!.toArray() as BigInt64Array | Float64Array;
    let i = 0;
    for (const ids of listUtf8Rows(table.getChild("frame_ids")!)) {
      const m = metrics[i]!;
      // Stacks of one path recur per track and per generation; the view sums them.
      const key = ids.join("\u0000");
      let stacks = byMetric.get(m);
      if (!stacks) byMetric.set(m, (stacks = new Map()));
      const stack = stacks.get(key) ?? { frameIds: ids, value: 0, samples: 0 };
      stack.value += Number(values[i]);
      stack.samples += Number(counts[i]);
      i++;
      stacks.set(key, stack);
    }
  }
  return { byMetric, generations };
}

export const metricsOf = (set: StackSet) => [...set.byMetric.keys()].sort() as FrameMetric[];

/** The metric a view shows without --metric: `preferred` when present, else hotspots' default. */
export function defaultMetric(set: StackSet, preferred?: FrameMetric | null): FrameMetric | null {
  if (preferred && set.byMetric.has(preferred)) return preferred;
  // The same default as hotspots, so a picture and the hotspots of a subject agree.
  return defaultFrameMetric(metricsOf(set));
}

export async function selectView(
  snapshot: SnapshotHandle,
  set: StackSet,
  metric?: FrameMetric | null,
): Promise<ProfileStacks> {
  if (metric !== undefined && metric !== null && !FRAME_METRICS.includes(metric)) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Unknown metric ${metric}; expected one of ${FRAME_METRICS.join(", ")}`,
      { details: { field: "metric" } },
    );
  }
  const chosen = metric ?? defaultMetric(set);
  const stacks = chosen ? [...(set.byMetric.get(chosen)?.values() ?? [])] : [];
  let totalValue = 0;
  let totalSamples = 0;
  for (const s of stacks) {
    totalValue += s.value;
    totalSamples += s.samples;
  }
  return {
    metric: chosen,
    unit: chosen ? await unitOf(snapshot, set.generations, chosen) : "",
    metricsAvailable: metricsOf(set),
    frames: stacks.length > 0 ? await readFrames(snapshot, set.generations) : new Map(),
    stacks,
    totalValue,
    totalSamples,
    generations: set.generations,
  };
}

export async function readProfileStacks(
  snapshot: SnapshotHandle,
  subject: Subject,
  metric?: FrameMetric,
): Promise<ProfileStacks> {
  return selectView(snapshot, await readStackSet(snapshot, subject), metric);
}
/** The metric's unit as the frame measurements record it (ns for times, bytes, count). */
async function unitOf(
  snapshot: SnapshotHandle,
  generations: CommitEntry[],
  metric: FrameMetric,
): Promise<string> {
  for (const file of snapshot.tableFiles("frame_measurements", generations)) {
    if (file.rows === 0) continue;
    const table = readParquet(await openPart(snapshot, file), ["metric", "unit"]);
    const metrics = table.getChild("metric")!;
    for (let i = 0; i < table.numRows; i++)
      if (metrics.get(i) === metric) return String(table.getChild("unit")!.get(i));
  }
  return metric.endsWith("_space")
    ? "bytes"
    : metric.endsWith("_time") || metric === "delay"
      ? "ns"
      : "count";
}
