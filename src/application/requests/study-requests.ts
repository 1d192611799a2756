/** What every comparison request says about its statistics (unit, direction, threshold, bootstrap). */
const COMPARISON_STATISTICS = {
  "unit?": type("0 < string <= 32").or("null"),
  polarity: type.enumerated(...POLARITIES),
  practical_threshold: type("0 < number < 10").describe(
    "smallest relative change that matters, e.g. 0.05 for 5%",
  ),
  "confidence_level?": "0.5 <= number < 1",
  "random_seed?": "0 <= number.integer <= 9007199254740991",
  "resamples?": type("9999 <= number.integer <= 99999").describe(
    "bootstrap resamples (default 9999)",
  ),
} as const;

/**
 * The requests of the study use cases: measurements, run sets, comparisons and
 * experiments (`flameox measurements|run-sets|experiment`, `analyze compare|record-comparison|
 * scaling`, and the study tools).
 */
import { type } from "arktype";
import { POLARITIES } from "../../analysis/statistics/decision.ts";
import { MAX_RUN_SET_MEMBERS } from "../study/run-sets.ts";
import type { StudyService } from "../study/study-service.ts";
import { cursor, pageLimit } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

const id = (what: string) => type("0 < string <= 200").describe(what);

export const MeasurementsQueryRequest = defineRequest(
  "measurements query",
  type({
    "+": "reject",
    "run_id?": id("a run id (run_…)"),
    "artifact_id?": id("an artifact id (sha256:…)"),
    "name_prefix?": type("0 < string <= 200").describe(
      "keep measurements whose name starts with this, e.g. wall_time",
    ),
    "include_warmups?": type("boolean").describe("include warm-up samples (default false)"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type MeasurementsQueryRequest = typeof MeasurementsQueryRequest.infer;

export const RunSetFreezeRequest = defineRequest(
  "run set",
  type({
    "+": "reject",
    "run_ids?": id("a run id").array().atMostLength(MAX_RUN_SET_MEMBERS),
    "members?": type({
      "+": "reject",
      run_id: id("a run id"),
      "trial_id?": id("a trial id").or("null"),
      "block_id?": type("0 < string <= 200").or("null"),
      "included?": "boolean",
      "reason?": type("0 < string <= 500").or("null"),
    })
      .array()
      .atMostLength(MAX_RUN_SET_MEMBERS),
    "selection?": type("Record<string, string | number | boolean | null>").describe(
      "free-form description of how the members were chosen",
    ),
  }),
);
export type RunSetFreezeRequest = typeof RunSetFreezeRequest.infer;

export const RunSetLookupRequest = defineRequest(
  "run set lookup",
  type({ "+": "reject", run_set_id: id("a run set id (rs_…)") }),
);
export type RunSetLookupRequest = typeof RunSetLookupRequest.infer;

export const ComparisonRequest = defineRequest(
  "comparison",
  type({
    "+": "reject",
    baseline_run_set_id: id("the baseline run set (rs_…)"),
    candidate_run_set_id: id("the candidate run set (rs_…)"),
    "experiment_id?": id("the experiment whose oracle receipts validate the members").or("null"),
    metric: type("0 < string <= 128").describe(
      "measurement name, e.g. wall_time, host_time, real_time",
    ),
    "scope?": type("0 < string <= 4096")
      .or("null")
      .describe("benchmark/command the samples belong to, when a run holds several"),
    "baseline_scope?": type("0 < string <= 4096")
      .or("null")
      .describe(
        "the baseline's benchmark/command, when the two sides measure different ones (default: scope)",
      ),
    "candidate_scope?": type("0 < string <= 4096")
      .or("null")
      .describe("the candidate's benchmark/command (default: scope)"),
    ...COMPARISON_STATISTICS,
  }),
);
export type ComparisonRequest = typeof ComparisonRequest.infer;

/**
 * Two benchmarks (hyperfine commands, pyperf benchmarks) inside one imported file
 * (`flameox analyze compare --run`).
 */
export const BenchmarkComparisonRequest = defineRequest(
  "benchmark comparison",
  type({
    "+": "reject",
    run_id: id("the run of one imported benchmark file (run_…)"),
    baseline_scope: type("0 < string <= 4096").describe(
      "the baseline benchmark (hyperfine command, pyperf benchmark name)",
    ),
    candidate_scope: type("0 < string <= 4096").describe("the candidate benchmark"),
    metric: type("0 < string <= 128").describe("measurement name, e.g. wall_time"),
    ...COMPARISON_STATISTICS,
  }),
);
export type BenchmarkComparisonRequest = typeof BenchmarkComparisonRequest.infer;

/**
 * Two runs of one benchmark, before and after a change, samples paired by position
 * (`flameox analyze compare --baseline-run`).
 */
export const RunsComparisonRequest = defineRequest(
  "runs comparison",
  type({
    "+": "reject",
    baseline_run_id: id("the baseline run (run_…)"),
    candidate_run_id: id("the candidate run (run_…)"),
    "scope?": type("0 < string <= 4096")
      .or("null")
      .describe("the benchmark (scope) compared in both runs"),
    metric: type("0 < string <= 128").describe("measurement name, e.g. wall_time"),
    ...COMPARISON_STATISTICS,
  }),
);
export type RunsComparisonRequest = typeof RunsComparisonRequest.infer;

export const ExperimentPlanRequest = defineRequest(
  "experiment plan",
  type({
    "+": "reject",
    experiment_name: type("0 < string <= 64").describe(
      "an [experiments.NAME] entry of flameox.toml",
    ),
    "investigation_id?": id("an investigation id").or("null"),
    "hypothesis_id?": id("a hypothesis id").or("null"),
  }),
);
export type ExperimentPlanRequest = typeof ExperimentPlanRequest.infer;

export const ExperimentRunRequest = defineRequest(
  "experiment run",
  type({
    "+": "reject",
    plan_id: type("0 < string <= 128").describe("the plan_id from plan_experiment (single use)"),
  }),
);
export type ExperimentRunRequest = typeof ExperimentRunRequest.infer;

export const ExperimentLookupRequest = defineRequest(
  "experiment lookup",
  type({ "+": "reject", experiment_id: id("an experiment id (exp_…)") }),
);
export type ExperimentLookupRequest = typeof ExperimentLookupRequest.infer;

export const TrialsPageRequest = defineRequest(
  "trials listing",
  type({
    "+": "reject",
    experiment_id: id("an experiment id (exp_…)"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type TrialsPageRequest = typeof TrialsPageRequest.infer;

export function answerMeasurementsQuery(study: StudyService, r: MeasurementsQueryRequest) {
  return study.queryMeasurements({
    runId: r.run_id,
    artifactId: r.artifact_id,
    namePrefix: r.name_prefix,
    includeWarmups: r.include_warmups,
    limit: r.limit,
    cursor: r.cursor,
  });
}

export const answerRunSet = (study: StudyService, r: RunSetLookupRequest) =>
  study.getRunSet(r.run_set_id);

export const answerRunSetFreeze = (study: StudyService, r: RunSetFreezeRequest) =>
  study.freezeRunSet(r);

/** A read-only preview of the comparison. */
export const answerComparison = (study: StudyService, r: ComparisonRequest) => study.compare(r);

/** A read-only preview of two benchmarks of one run compared. */
export const answerBenchmarkComparison = (study: StudyService, r: BenchmarkComparisonRequest) =>
  study.compareScopes(r);

/** A read-only preview of two runs compared. */
export const answerRunsComparison = (study: StudyService, r: RunsComparisonRequest) =>
  study.compareRuns(r);

/** The comparison, persisted with its parameter and result digests. */
export const answerRecordedComparison = (study: StudyService, r: ComparisonRequest) =>
  study.recordComparison(r);

export const answerExperimentPlan = (study: StudyService, r: ExperimentPlanRequest) =>
  study.planExperiment({
    name: r.experiment_name,
    investigation_id: r.investigation_id,
    hypothesis_id: r.hypothesis_id,
  });

export const answerExperiment = (study: StudyService, r: ExperimentLookupRequest) =>
  study.getExperiment(r.experiment_id);

export const answerScaling = (study: StudyService, r: ExperimentLookupRequest) =>
  study.scaling(r.experiment_id);

export const answerTrialsPage = (study: StudyService, r: TrialsPageRequest) =>
  study.listTrials(r.experiment_id, { limit: r.limit, cursor: r.cursor });
