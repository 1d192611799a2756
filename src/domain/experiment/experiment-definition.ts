/**
 * Normalizes one `[experiments.<name>]` entry against the declared workloads: the workload
 * must exist, every variant's values must be declared parameters of it, the scaling
 * parameter too, and the cell count must stay under max_trials. The definition's digest
 * is its `experiment_design_id`.
 */
import { type } from "arktype";
import { digestOf } from "../canonical-digest.ts";
import type { WorkloadDefinition } from "../workload/project-config.ts";
import type { ScalarValue } from "../workload/workload-schema.ts";
import {
  EXPERIMENT_NAME,
  type EXPERIMENT_PROFILES,
  ExperimentSpec,
  MAX_TRIALS,
} from "./experiment-spec.ts";

export interface ExperimentDefinition {
  name: string;
  experiment_design_id: string;
  workload: string;
  workload_definition_id: string;
  description: string | null;
  design: "randomized_complete_blocks";
  blocks: number;
  /** Treatments in declaration order; `baseline` is the comparison's reference. */
  variants: { name: string; parameters: Record<string, ScalarValue> }[];
  baseline: string;
  scaling_parameter: string | null;
  scaling_values: number[];
  primary_metric: string;
  metric_scope: string | null;
  metric_source: "benchmark_samples" | "process_wall_time";
  /** The sampling profiler every trial runs under; null runs the workload as declared. */
  profile: (typeof EXPERIMENT_PROFILES)[number] | null;
  polarity: "lower_is_better" | "higher_is_better" | "neutral";
  estimand: "median_paired_log_ratio";
  practical_threshold: number;
  confidence_level: number;
  random_seed: number;
  role: "confirmatory" | "exploratory";
  max_trials: number;
}

export type NormalizedExperiment =
  | { ok: true; definition: ExperimentDefinition }
  | { ok: false; diagnostics: { path: string; message: string }[] };

export function normalizeExperiment(
  name: string,
  raw: unknown,
  workloads: Record<string, WorkloadDefinition>,
): NormalizedExperiment {
  const at = `experiments.${name}`;
  const spec = ExperimentSpec(raw);
  if (spec instanceof type.errors)
    return {
      ok: false,
      diagnostics: spec.map((e) => ({ path: [at, ...e.path].join("."), message: e.message })),
    };
  const problems: { path: string; message: string }[] = [];
  const problem = (path: string, message: string) =>
    problems.push({ path: `${at}${path}`, message });
  if (!EXPERIMENT_NAME.test(name))
    problem("", `experiment name must match ${EXPERIMENT_NAME.source}`);
  const workload = workloads[spec.workload];
  if (!workload)
    problem(
      ".workload",
      `names ${JSON.stringify(spec.workload)}, which is not a declared workload`,
    );
  const variants = Object.entries(spec.variants).map(([variant, parameters]) => ({
    name: variant,
    parameters,
  }));
  if (variants.length < 2)
    problem(".variants", "needs at least two variants (a baseline and a candidate)");
  for (const v of variants) {
    for (const p of Object.keys(v.parameters))
      if (workload && !workload.parameters[p])
        problem(`.variants.${v.name}.${p}`, `is not a parameter of workload ${spec.workload}`);
  }
  const baseline = spec.baseline ?? variants[0]?.name ?? "";
  if (!variants.some((v) => v.name === baseline))
    problem(".baseline", `names ${JSON.stringify(baseline)}, which is not a variant`);
  const scaling = spec.scaling_parameter ?? null;
  if (scaling && workload && !workload.parameters[scaling])
    problem(".scaling_parameter", `is not a parameter of workload ${spec.workload}`);
  if ((scaling === null) !== (spec.scaling_values === undefined))
    problem(".scaling_values", "scaling_parameter and scaling_values go together");
  const cells = spec.blocks * variants.length * Math.max(1, spec.scaling_values?.length ?? 1);
  const maxTrials = spec.max_trials ?? 10_000;
  if (cells > Math.min(maxTrials, MAX_TRIALS))
    problem(".blocks", `the design has ${cells} trials, more than max_trials ${maxTrials}`);
  if (problems.length > 0 || !workload) return { ok: false, diagnostics: problems };
  const body = {
    name,
    workload: spec.workload,
    workload_definition_id: workload.workload_definition_id,
    description: spec.description ?? null,
    design: "randomized_complete_blocks" as const,
    blocks: spec.blocks,
    variants,
    baseline,
    scaling_parameter: scaling,
    scaling_values: spec.scaling_values ?? [],
    primary_metric: spec.primary_metric,
    metric_scope: spec.metric_scope ?? null,
    metric_source: spec.metric_source ?? "benchmark_samples",
    profile: spec.profile ?? null,
    polarity: spec.polarity,
    estimand: "median_paired_log_ratio" as const,
    practical_threshold: spec.practical_threshold,
    confidence_level: spec.confidence_level ?? 0.95,
    random_seed: spec.random_seed,
    role: spec.role ?? "confirmatory",
    max_trials: maxTrials,
  };
  return { ok: true, definition: { ...body, experiment_design_id: digestOf(body) } };
}
