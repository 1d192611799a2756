/**
 * The comparison requests: two run sets, two benchmarks of one run, two runs
 * (`flameox analyze compare|record-comparison`, compare_run_sets, record_comparison).
 */
import { type } from "arktype";
import { POLARITIES } from "../../analysis/statistics/decision.ts";
import type { StudyService } from "../study/study-service.ts";
import { recordId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

/**
 * What every comparison request says about its statistics (unit, direction, threshold,
 * bootstrap).
 */
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

export const ComparisonRequest = defineRequest(
  "comparison",
  type({
    "+": "reject",
    baseline_run_set_id: recordId("the baseline run set (rs_…)"),
    candidate_run_set_id: recordId("the candidate run set (rs_…)"),
    "experiment_id?": recordId("the experiment whose oracle receipts validate the members").or(
      "null",
    ),
    metric: type("0 < string <= 128").describe(
      "measurement name, e.g. wall_time, host_time, real_time",
    ),
    "scope?": type("0 < string <= 4096")
      .or("null")
      .describe("benchmark/command the samples belong to, when a run holds several"),
    "baseline_scope?": type("0 < string <= 4096")
      .or("null")
      .describe(
        "the baseline's benchmark/command, when the two sides measure different ones " +
          "(default: scope)",
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
    run_id: recordId("the run of one imported benchmark file (run_…)"),
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
    baseline_run_id: recordId("the baseline run (run_…)"),
    candidate_run_id: recordId("the candidate run (run_…)"),
    "scope?": type("0 < string <= 4096")
      .or("null")
      .describe("the benchmark (scope) compared in both runs"),
    metric: type("0 < string <= 128").describe("measurement name, e.g. wall_time"),
    ...COMPARISON_STATISTICS,
  }),
);
export type RunsComparisonRequest = typeof RunsComparisonRequest.infer;

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
