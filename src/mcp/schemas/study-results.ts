/**
 * Results of the study tools, every field declared (study-checks.ts proves at compile
 * time that the application's result models fit them): measurements pages, run sets,
 * comparisons, experiment plans and records, trial pages and scaling.
 */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { TRIAL_OUTCOMES } from "../../domain/experiment/trial.ts";
import { EvidenceStatus, Limitation, pageFields } from "./common.ts";

const scalar = "string | number | boolean";
const nullableNumber = "number | null";

const MeasurementItem = type({
  run_id: "string",
  artifact_id: "string",
  measurement_id: "string",
  name: "string",
  value: "number",
  value_kind: "'int' | 'float'",
  unit: "string",
  aggregation: "string",
  scope: "string",
  trial_id: "string | null",
  worker_id: "string | null",
  worker_run_index: nullableNumber,
  value_index: nullableNumber,
  loop_count: nullableNumber,
  is_warmup: "boolean",
  block_id: "string | null",
  phase: "string | null",
  dimensions: "Record<string, unknown>",
});

export const MeasurementsPageResult = type({
  ...pageFields,
  schema_version: "number",
  query: "string",
  query_version: "string",
  corpus_commit_id: "string",
  evidence: EvidenceStatus,
  generation_ids: "string[]",
  items: MeasurementItem.array(),
});

export const RunSetResult = type({
  schema_version: "1",
  run_set_id: "string",
  corpus_commit_id: "string",
  created_at: "string",
  selection: "Record<string, unknown>",
  members: type({
    run_id: "string",
    trial_id: "string | null",
    block_id: "string | null",
    included: "boolean",
    reason: "string | null",
  }).array(),
  membership_digest: "string",
});

const polarity = "'lower_is_better' | 'higher_is_better' | 'neutral'";
const SideCounts = type({
  attempted: "number",
  eligible: "number",
  failed: "number",
  excluded: "number",
});

export const ComparisonResultSchema = type({
  schema_version: "1",
  recipe: "'compare_run_sets'",
  recipe_version: "string",
  corpus_commit_id: "string",
  request: {
    baseline_run_set_id: "string",
    candidate_run_set_id: "string",
    "experiment_id?": "string | null",
    metric: "string",
    "scope?": "string | null",
    "unit?": "string | null",
    polarity,
    practical_threshold: "number",
    "confidence_level?": "number",
    "random_seed?": "number",
    "resamples?": "number",
  },
  metric: "string",
  unit: "string | null",
  polarity,
  estimand: "'median_paired_log_ratio'",
  method: "string",
  independent_unit: "'block' | 'sample'",
  paired: "true",
  pairing: "'block' | 'sample_hierarchy' | 'position'",
  practical_threshold: "number",
  confidence_level: "number",
  random_seed: "number",
  resamples: "number",
  baseline_value: nullableNumber,
  candidate_value: nullableNumber,
  absolute_change: nullableNumber,
  relative_change: nullableNumber,
  effect_size: nullableNumber,
  confidence_low: nullableNumber,
  confidence_high: nullableNumber,
  decision: type.enumerated(
    "meaningful_improvement",
    "meaningful_regression",
    "no_meaningful_difference",
    "inconclusive",
    "descriptive_only",
  ),
  validity: "'valid' | 'exploratory' | 'invalid'",
  mismatches: type({
    code: "string",
    invalidating: "boolean",
    message: "string",
    "run_ids?": "string[]",
  }).array(),
  baseline: SideCounts,
  candidate: SideCounts,
  complete_pair_n: "number",
  minimum_pairs: "number",
  failed_trials: type({
    side: "'baseline' | 'candidate'",
    run_id: "string",
    trial_id: "string | null",
    block_id: "string | null",
    reason: "string",
  }).array(),
  pairs: type({
    block_id: "string",
    baseline: nullableNumber,
    candidate: nullableNumber,
    log_ratio: nullableNumber,
  }).array(),
  interval: type({
    method: "string",
    resamples: nullableNumber,
    rank: nullableNumber,
    interpolation: nullableNumber,
    bias_correction: nullableNumber,
    acceleration: nullableNumber,
  }).or("null"),
  wilcoxon: type({
    statistic: "number",
    p_value: nullableNumber,
    method: "'exact' | 'normal_approximation' | 'none'",
    n_used: "number",
    zeros_dropped: "number",
    ties: "boolean",
  }).or("null"),
  outlier_blocks: "string[]",
  claim_level: "'derived'",
  limitations: Limitation.array(),
  "comparison_id?": "string",
  "created_at?": "string",
  "parameters_digest?": "string",
  "result_digest?": "string",
});

const Oracle = type({
  strength: "'execution_check' | 'contract_check' | 'cross_treatment_equivalence'",
  argv: "string[]",
  timeout_seconds: "number",
});

const WorkloadInstance = type({
  name: "string",
  workload_definition_id: "string",
  workload_instance_id: "string",
  parameters: `Record<string, ${scalar}>`,
  argv: "string[]",
  cwd: "string",
  timeout_seconds: "number",
  environment: "Record<string, string>",
  writable_paths: "string[]",
  oracle: Oracle.or("null"),
});

const PlannedCell = {
  cell_index: "number",
  block_index: "number",
  block_id: "string",
  order_in_block: "number",
  variant: "string",
  scaling_value: nullableNumber,
  parameters: `Record<string, ${scalar}>`,
} as const;

const ExperimentDefinition = type({
  name: "string",
  experiment_design_id: "string",
  workload: "string",
  workload_definition_id: "string",
  description: "string | null",
  design: "'randomized_complete_blocks'",
  blocks: "number",
  variants: type({ name: "string", parameters: `Record<string, ${scalar}>` }).array(),
  baseline: "string",
  scaling_parameter: "string | null",
  scaling_values: "number[]",
  primary_metric: "string",
  metric_scope: "string | null",
  metric_source: "'benchmark_samples' | 'process_wall_time'",
  // Optional: protocols stored before profiles existed lack it (and `capture`).
  "profile?": "'v8-cpu' | 'perf' | null",
  polarity,
  estimand: "'median_paired_log_ratio'",
  practical_threshold: "number",
  confidence_level: "number",
  random_seed: "number",
  role: "'confirmatory' | 'exploratory'",
  max_trials: "number",
});

const ExperimentProtocol = type({
  schema_version: "1",
  name: "string",
  configuration_id: "string",
  definition: ExperimentDefinition,
  investigation_id: "string | null",
  hypothesis_id: "string | null",
  measurement_protocol_id: "string",
  validation: { oracle_strength: "string | null", oracle_argv: "string[] | null" },
  randomization: {
    method: "'seeded_fisher_yates_per_block'",
    prng: "'xoshiro128**/splitmix32'",
    seed: "number",
  },
  "capture?": type({
    adapter: "string",
    adapter_version: "string",
    producer: { name: "string", version: "string | null" },
    containment: "string",
    source_state_id: "string",
    source_quality: "string",
    environment_id: "string",
    environment_quality: "string",
  }).or("null"),
  cells: type(PlannedCell).array(),
  instances: type({ "[string]": WorkloadInstance }),
  // Stored protocols also say which experiment they belong to and when it was stored.
  "experiment_id?": "string",
  "created_at?": "string",
});

export const ExperimentPlanResult = type({
  plan_id: "string",
  expires_at: "string",
  ttl_seconds: "number",
  protocol: ExperimentProtocol,
  request_digest: "string",
  trials_planned: "number",
});

export const ExperimentResult = type({
  experiment_id: "string",
  status: "string",
  protocol: ExperimentProtocol,
  outcome: type({
    counts: "Record<string, number>",
    attempted: "number",
    complete_blocks: "number",
    incomplete_blocks: "number",
    first_failure_trial_id: "string | null",
    run_set_ids: "Record<string, string>",
    stopped: "string | null",
  }).or("null"),
});

const TrialOutcome = type.enumerated(...TRIAL_OUTCOMES);

const TrialRecord = type({
  ...PlannedCell,
  schema_version: "1",
  trial_id: "string",
  experiment_id: "string",
  attempt: "number",
  outcome: TrialOutcome,
  run_id: "string | null",
  started_at: "string | null",
  finished_at: "string | null",
  failure_class: "string | null",
  message: "string | null",
  oracle: type({
    strength: "'execution_check' | 'contract_check' | 'cross_treatment_equivalence'",
    status: "'pass' | 'fail' | 'inconclusive' | 'unsupported' | 'error'",
    reason: "string | null",
    exit_code: nullableNumber,
    receipt: "Record<string, unknown> | null",
  }).or("null"),
  artifact_ids: "string[]",
});

export const TrialPageResult = type({
  ...pageFields,
  experiment_id: "string",
  items: TrialRecord.array(),
});

const ScalingModel = "'constant' | 'logarithmic' | 'linear' | 'n_log_n' | 'quadratic'";

const FrameCorrelation = type({
  frame_id: "string",
  function: "string",
  file: "string | null",
  line: nullableNumber,
  rho: "number",
  p_value: "number",
  q_value: "number",
  grows_with_input: "boolean",
  trials_present: "number",
  median_self_by_input: type({ input: "number", value: "number" }).array(),
});

const FrameCorrelations = type({ status: "'unavailable'", reason: "string" }).or({
  status: "'available' | 'partial'",
  reason: "string",
  metric: type.enumerated(...FRAME_METRICS),
  measure: "'self_value'",
  unit: "string | null",
  method: "'spearman_t_approx_benjamini_hochberg'",
  alpha: "number",
  profiled_trials: "number",
  unprofiled_trials: "number",
  variants: type({
    variant: "string",
    profiled_trials: "number",
    inputs: "number",
    family_size: "number",
    flagged: "number",
    frames: FrameCorrelation.array(),
    truncated: "boolean",
    note: "string | null",
  }).array(),
});

export const ScalingResultSchema = type({
  schema_version: "1",
  recipe: "'scaling'",
  recipe_version: "string",
  corpus_commit_id: "string",
  experiment_id: "string",
  metric: "string",
  unit: "string | null",
  scaling_parameter: "string | null",
  variants: type({
    variant: "string",
    points: type({
      input: "number",
      trials: "number",
      median: "number",
      mad: "number",
      confidence_low: nullableNumber,
      confidence_high: nullableNumber,
    }).array(),
    selection: {
      status: "'selected' | 'inconclusive' | 'insufficient_data'",
      best_model: type(ScalingModel).or("null"),
      margin: nullableNumber,
      fits: type({
        model: ScalingModel,
        intercept: "number",
        slope: nullableNumber,
        intercept_se: nullableNumber,
        slope_se: nullableNumber,
        rss: "number",
        residual_rms: "number",
        r_squared: "number",
        aicc: nullableNumber,
        delta_aicc: nullableNumber,
        durbin_watson: nullableNumber,
      }).array(),
      points: "number",
      distinct_inputs: "number",
      supported_range: type({ min: "number", max: "number" }).or("null"),
      "weighting?": "'relative' | 'none'",
    },
  }).array(),
  counts: {
    attempted: "number",
    succeeded: "number",
    failed: "number",
    unattempted: "number",
    complete_blocks: "number",
  },
  frame_correlations: FrameCorrelations,
  warnings: "string[]",
  claim_level: "'derived'",
});
