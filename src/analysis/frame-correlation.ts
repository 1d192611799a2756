/**
 * Frames whose cost grows with input (scaling, REFERENCE (e) step 5). For each variant,
 * every frame seen in the trials' profiles is one test: Spearman ρ between the trial's
 * input size and the frame's self time in that trial (a profiled trial where the frame
 * never appears had no sample in it: 0). p-values are the t approximation scipy's
 * spearmanr reports; q-values are Benjamini–Hochberg over the variant's tested family.
 * A frame is flagged when q < α and ρ > 0. Frames whose self time is the same in every
 * trial have no rank correlation and are not tested. Without profile evidence for the
 * trials the result is `unavailable`, never "no frame grows".
 */
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { readEvidenceColumns } from "./evidence-reader.ts";
import { readFrames } from "./hotspots.ts";
import { benjaminiHochberg } from "./statistics/benjamini-hochberg.ts";
import { median } from "./statistics/descriptive.ts";
import { spearman } from "./statistics/spearman.ts";

export const FRAME_CORRELATION_ALPHA = 0.05;
/** Frames listed per variant (flagged first); the family size says how many were tested. */
export const MAX_FRAMES_PER_VARIANT = 25;
/** Time metrics only: a size-vs-cost question about allocation counts would be another recipe. */
const TIME_METRICS: FrameMetric[] = ["cpu_time", "wall_time"];

export interface ProfiledTrial {
  run_id: string;
  variant: string;
  input: number;
}

export interface FrameCorrelation {
  frame_id: string;
  function: string;
  file: string | null;
  line: number | null;
  rho: number;
  p_value: number;
  q_value: number;
  grows_with_input: boolean;
  /** Profiled trials in which the frame had at least one sample. */
  trials_present: number;
  /** Median self time of the frame per input size (0 where it had no sample), in `unit`. */
  median_self_by_input: { input: number; value: number }[];
}

export interface VariantFrameCorrelation {
  variant: string;
  profiled_trials: number;
  inputs: number;
  family_size: number;
  flagged: number;
  frames: FrameCorrelation[];
  truncated: boolean;
  note: string | null;
}

export type FrameCorrelations =
  | { status: "unavailable"; reason: string }
  | {
      status: "available" | "partial";
      reason: string;
      metric: FrameMetric;
      measure: "self_value";
      unit: string | null;
      method: "spearman_t_approx_benjamini_hochberg";
      alpha: number;
      profiled_trials: number;
      unprofiled_trials: number;
      variants: VariantFrameCorrelation[];
    };

export async function frameCorrelations(
  snapshot: SnapshotHandle,
  trials: readonly ProfiledTrial[],
): Promise<FrameCorrelations> {
  const profiles = new Map<string, CommitEntry[]>();
  for (const t of trials) {
    const gens = profileGenerations(snapshot, t.run_id);
    if (gens.length > 0) profiles.set(t.run_id, gens);
  }
  if (profiles.size === 0) {
    return {
      status: "unavailable",
      reason:
        'no profile evidence was captured for these trials; declare profile = "v8-cpu" (or ' +
        '"perf") on the experiment to profile every trial',
    };
  }
  const selfByTrial = new Map<string, Map<string, Map<string, number>>>();
  const units = new Map<string, string>();
  for (const [runId, gens] of profiles) {
    const fm = await readEvidenceColumns(snapshot, "frame_measurements", gens, [
      "frame_id",
      "metric",
      "unit",
      "self_value",
    ]);
    const byMetric = new Map<string, Map<string, number>>();
    for (let i = 0; i < fm.rows; i++) {
      const metric = fm.columns.metric![i] as string;
      const frames = byMetric.get(metric) ?? new Map<string, number>();
      const id = fm.columns.frame_id![i] as string;
      frames.set(id, (frames.get(id) ?? 0) + Number(fm.columns.self_value![i] ?? 0));
      byMetric.set(metric, frames);
      units.set(metric, fm.columns.unit![i] as string);
    }
    selfByTrial.set(runId, byMetric);
  }
  // One metric for every trial: the preferred time metric that all profiled trials have.
  const metric = TIME_METRICS.find((m) =>
    [...selfByTrial.values()].every((byMetric) => byMetric.has(m)),
  );
  if (!metric)
    return {
      status: "unavailable",
      reason:
        `the trials' profiles do not all hold one time metric (${TIME_METRICS.join(" or ")}); ` +
        `frame correlation needs self time per trial`,
    };
  const profiled = trials.filter((t) => profiles.has(t.run_id));
  const frameInfo = await readFrames(snapshot, [...new Set([...profiles.values()].flat())]);
  const variants = [...new Set(profiled.map((t) => t.variant))].sort().map((variant) => {
    const mine = profiled.filter((t) => t.variant === variant);
    return correlateVariant(
      variant,
      mine,
      (t) => selfByTrial.get(t.run_id)!.get(metric)!,
      frameInfo,
    );
  });
  const unprofiled = trials.length - profiled.length;
  return {
    status: unprofiled > 0 ? "partial" : "available",
    reason:
      unprofiled > 0
        ? `${unprofiled} of ${trials.length} succeeded trials have no profile; they are left ` +
          `out of the tests`
        : `${metric} self time of every frame in ${profiled.length} profiled trials`,
    metric,
    measure: "self_value",
    unit: units.get(metric) ?? null,
    method: "spearman_t_approx_benjamini_hochberg",
    alpha: FRAME_CORRELATION_ALPHA,
    profiled_trials: profiled.length,
    unprofiled_trials: unprofiled,
    variants,
  };
}

function correlateVariant(
  variant: string,
  trials: ProfiledTrial[],
  selfOf: (t: ProfiledTrial) => Map<string, number>,
  frameInfo: Awaited<ReturnType<typeof readFrames>>,
): VariantFrameCorrelation {
  const inputs = [...new Set(trials.map((t) => t.input))].sort((a, b) => a - b);
  const empty = {
    variant,
    profiled_trials: trials.length,
    inputs: inputs.length,
    family_size: 0,
    flagged: 0,
    frames: [],
    truncated: false,
  };
  if (trials.length < 3 || inputs.length < 2)
    return {
      ...empty,
      note: "fewer than 3 profiled trials or 2 distinct inputs: nothing to correlate",
    };
  const frameIds = [...new Set(trials.flatMap((t) => [...selfOf(t).keys()]))].sort();
  const xs = trials.map((t) => t.input);
  const tested: { id: string; ys: number[]; rho: number; p: number }[] = [];
  for (const id of frameIds) {
    const ys = trials.map((t) => selfOf(t).get(id) ?? 0);
    const r = spearman(xs, ys);
    if (r.rho !== null && r.p_value !== null) tested.push({ id, ys, rho: r.rho, p: r.p_value });
  }
  const q = benjaminiHochberg(tested.map((t) => t.p));
  const rows: FrameCorrelation[] = tested.map((t, i) => {
    const info = frameInfo.get(t.id);
    return {
      frame_id: t.id,
      function: info?.function ?? "(unknown frame)",
      file: info?.file ?? null,
      line: info?.line ?? null,
      rho: t.rho,
      p_value: t.p,
      q_value: q[i]!,
      grows_with_input: q[i]! < FRAME_CORRELATION_ALPHA && t.rho > 0,
      trials_present: t.ys.filter((y) => y > 0).length,
      median_self_by_input: inputs.map((input) => ({
        input,
        value: median(t.ys.filter((_, k) => xs[k] === input)),
      })),
    };
  });
  rows.sort(
    (a, b) =>
      Number(b.grows_with_input) - Number(a.grows_with_input) ||
      a.q_value - b.q_value ||
      b.rho - a.rho ||
      (a.frame_id < b.frame_id ? -1 : 1),
  );
  return {
    ...empty,
    family_size: tested.length,
    flagged: rows.filter((r) => r.grows_with_input).length,
    frames: rows.slice(0, MAX_FRAMES_PER_VARIANT),
    truncated: rows.length > MAX_FRAMES_PER_VARIANT,
    note:
      tested.length < frameIds.length
        ? `${frameIds.length - tested.length} frame(s) had the same self time in every trial ` +
          `and were not tested`
        : null,
  };
}

/**
 * Generations of one run holding frame measurements, the newest per artifact and extractor (a
 * re-extraction never doubles time).
 */
function profileGenerations(snapshot: SnapshotHandle, runId: string): CommitEntry[] {
  const latest = new Map<string, CommitEntry>();
  for (const g of snapshot.commit.generations) {
    if ((g.tables.frame_measurements ?? 0) === 0 || !g.run_ids.includes(runId)) continue;
    latest.set(`${g.artifact_ids.join(",")}|${g.extractor}`, g);
  }
  return [...latest.values()];
}
