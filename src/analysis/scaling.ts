/**
 * analyze scaling: how the primary metric grows with the experiment's scaling parameter.
 * Per succeeded trial, the median (and MAD) of its non-warm-up samples; per (variant,
 * input), the median of trial medians with a BCa interval (1,999 resamples, seed 0, as
 * REFERENCE (e)); per variant, least-squares complexity fits ranked by AICc with the ≥ 2
 * margin rule. Frame correlations (frame-correlation.ts) need profiles of the trials;
 * without them that part is reported unavailable, never as "no correlated frames".
 */
import type { TrialRecord } from "../domain/experiment/trial.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { frameCorrelations, type FrameCorrelations } from "./frame-correlation.ts";
import { measurementGenerations, readMeasurements } from "./measurements/read-measurements.ts";
import { selectSamples } from "./comparison/member-values.ts";
import { bcaMedianInterval } from "./statistics/bootstrap-bca.ts";
import { mad, median } from "./statistics/descriptive.ts";
import { selectScalingModel, type ModelSelection } from "./statistics/scaling-fit.ts";

export const SCALING_RECIPE = "scaling";
export const SCALING_VERSION = "1";
const POINT_RESAMPLES = 1_999;

export interface ScalingPoint {
  input: number;
  trials: number;
  median: number;
  mad: number;
  confidence_low: number | null;
  confidence_high: number | null;
}
export interface VariantScaling {
  variant: string;
  points: ScalingPoint[];
  selection: ModelSelection;
}

export interface ScalingResult {
  schema_version: 1;
  recipe: typeof SCALING_RECIPE;
  recipe_version: string;
  corpus_commit_id: string;
  experiment_id: string;
  metric: string;
  unit: string | null;
  scaling_parameter: string | null;
  variants: VariantScaling[];
  counts: {
    attempted: number;
    succeeded: number;
    failed: number;
    unattempted: number;
    complete_blocks: number;
  };
  frame_correlations: FrameCorrelations;
  warnings: string[];
  claim_level: "derived";
}

export async function analyzeScaling(
  snapshot: SnapshotHandle,
  experiment: {
    experiment_id: string;
    metric: string;
    scope: string | null;
    scaling_parameter: string | null;
  },
  trials: TrialRecord[],
): Promise<ScalingResult> {
  const ok = trials.filter(
    (t) => t.outcome === "succeeded" && t.run_id !== null && t.scaling_value !== null,
  );
  const rows = await readMeasurements(
    snapshot,
    measurementGenerations(snapshot, { runIds: ok.map((t) => t.run_id!) }),
  );
  const units = new Set<string>();
  const perTrial = ok.flatMap((t) => {
    const samples = selectSamples(rows, t.run_id!, {
      metric: experiment.metric,
      scope: experiment.scope,
    });
    samples.forEach((s) => units.add(s.unit));
    return samples.length > 0 ? [{ trial: t, median: median(samples.map((s) => s.value)) }] : [];
  });
  const variants = [...new Set(perTrial.map((p) => p.trial.variant))].sort().map((variant) => {
    const mine = perTrial.filter((p) => p.trial.variant === variant);
    const inputs = [...new Set(mine.map((p) => p.trial.scaling_value!))].sort((a, b) => a - b);
    const points = inputs.map((input) => {
      const values = mine.filter((p) => p.trial.scaling_value === input).map((p) => p.median);
      const ci = bcaMedianInterval(values, { resamples: POINT_RESAMPLES, seed: 0 });
      return {
        input,
        trials: values.length,
        median: median(values),
        mad: mad(values),
        confidence_low: ci.low,
        confidence_high: ci.high,
      };
    });
    return {
      variant,
      points,
      selection: selectScalingModel(
        mine.map((p) => p.trial.scaling_value!),
        mine.map((p) => p.median),
      ),
    };
  });
  const blocks = new Map<number, boolean>();
  for (const t of trials)
    blocks.set(t.block_index, (blocks.get(t.block_index) ?? true) && t.outcome === "succeeded");
  const warnings: string[] = [];
  if (units.size > 1)
    warnings.push(`samples come in several units (${[...units].join(", ")}); fits mix them`);
  if (trials.every((t) => t.scaling_value === null))
    warnings.push("the experiment declares no scaling parameter; nothing to fit");
  warnings.push(
    "fits describe the measured input range only; extrapolating beyond supported_range is " +
      "not supported by this evidence",
  );
  return {
    schema_version: 1,
    recipe: SCALING_RECIPE,
    recipe_version: SCALING_VERSION,
    corpus_commit_id: snapshot.commitId,
    experiment_id: experiment.experiment_id,
    metric: experiment.metric,
    unit: [...units][0] ?? null,
    scaling_parameter: experiment.scaling_parameter,
    variants,
    counts: {
      attempted: trials.filter((t) => t.outcome !== "unattempted").length,
      succeeded: ok.length,
      failed: trials.filter((t) => !["succeeded", "unattempted"].includes(t.outcome)).length,
      unattempted: trials.filter((t) => t.outcome === "unattempted").length,
      complete_blocks: [...blocks.values()].filter(Boolean).length,
    },
    frame_correlations: await frameCorrelations(
      snapshot,
      ok.map((t) => ({ run_id: t.run_id!, variant: t.variant, input: t.scaling_value! })),
    ),
    warnings,
    claim_level: "derived",
  };
}
