/**
 * `[experiments.<name>]` in flameox.toml, as an arktype type (strict: unknown keys fail
 * with their path). A performance experiment names a declared workload, its treatments
 * (variants: parameter values per treatment), an optional scaling parameter, and the
 * whole analysis protocol up front: metric, polarity, estimand, threshold, confidence,
 * seed. Nothing of the protocol can be chosen after the data is seen. `profile` names a
 * sampling profiler every trial runs under (its capture adapter), so scaling can find the
 * frames whose cost grows with input; it is part of the design, since a profiler adds cost.
 */
import { type } from "arktype";

export const EXPERIMENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const MAX_BLOCKS = 1000;
export const MAX_TRIALS = 100_000;
/** Capture adapters whose evidence is a CPU sampling profile (frame self and inclusive time). */
export const EXPERIMENT_PROFILES = ["v8-cpu", "perf"] as const;

const ParameterValues = type({ "[string]": "string <= 4096 | number | boolean" });

export const ExperimentSpec = type({
  "+": "reject",
  workload: "string",
  "description?": "string <= 500",
  variants: type({ "[string]": ParameterValues }),
  "baseline?": "string",
  "design?": "'randomized_complete_blocks'",
  blocks: `1 <= number.integer <= ${MAX_BLOCKS}`,
  "scaling_parameter?": "string",
  "scaling_values?": type("number > 0").array().atLeastLength(2).atMostLength(64),
  primary_metric: "0 < string <= 128",
  "metric_scope?": "string <= 4096",
  "metric_source?": "'benchmark_samples' | 'process_wall_time'",
  "profile?": type.enumerated(...EXPERIMENT_PROFILES),
  polarity: "'lower_is_better' | 'higher_is_better' | 'neutral'",
  "estimand?": "'median_paired_log_ratio'",
  practical_threshold: "0 < number < 10",
  "confidence_level?": "0.5 <= number < 1",
  random_seed: "number.integer >= 0",
  "role?": "'confirmatory' | 'exploratory'",
  "max_trials?": `1 <= number.integer <= ${MAX_TRIALS}`,
});

export type ExperimentSpec = typeof ExperimentSpec.infer;
