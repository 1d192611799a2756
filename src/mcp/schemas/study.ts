/**
 * Inputs of the issue-5 tools, closed and bounded; their results are declared field by
 * field in study-results.ts (the same models the CLI prints with --json).
 */
import { type } from "arktype";

const id = (what: string) => type("0 < string <= 200").describe(what);
const cursor = type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page");
const limit = type("1 <= number.integer <= 1000").describe("a page size from 1 to 1000");

export const QueryMeasurementsInput = type({
  "+": "reject",
  "run_id?": id("a run id (run_…)"),
  "artifact_id?": id("an artifact id (sha256:…)"),
  "name_prefix?": type("0 < string <= 200").describe("keep measurements whose name starts with this, e.g. wall_time"),
  "include_warmups?": type("boolean").describe("include warm-up samples (default false)"),
  "limit?": limit,
  "cursor?": cursor,
});

export const FreezeRunSetInput = type({
  "+": "reject",
  "run_ids?": id("a run id").array().atMostLength(10_000),
  "members?": type({
    "+": "reject",
    run_id: id("a run id"),
    "trial_id?": id("a trial id").or("null"),
    "block_id?": type("0 < string <= 200").or("null"),
    "included?": "boolean",
    "reason?": type("0 < string <= 500").or("null"),
  }).array().atMostLength(10_000),
  "selection?": type("Record<string, string | number | boolean | null>").describe("free-form description of how the members were chosen"),
});

export const CompareRunSetsInput = type({
  "+": "reject",
  baseline_run_set_id: id("the baseline run set (rs_…)"),
  candidate_run_set_id: id("the candidate run set (rs_…)"),
  "experiment_id?": id("the experiment whose oracle receipts validate the members").or("null"),
  metric: type("0 < string <= 128").describe("measurement name, e.g. wall_time, host_time, real_time"),
  "scope?": type("0 < string <= 4096").or("null").describe("benchmark/command the samples belong to, when a run holds several"),
  "unit?": type("0 < string <= 32").or("null"),
  polarity: "'lower_is_better' | 'higher_is_better' | 'neutral'",
  practical_threshold: type("0 < number < 10").describe("smallest relative change that matters, e.g. 0.05 for 5%"),
  "confidence_level?": "0.5 <= number < 1",
  "random_seed?": "0 <= number.integer <= 9007199254740991",
});

export const PlanExperimentInput = type({
  "+": "reject",
  experiment_name: type("0 < string <= 64").describe("an [experiments.NAME] entry of flameox.toml"),
  "investigation_id?": id("an investigation id").or("null"),
  "hypothesis_id?": id("a hypothesis id").or("null"),
});
export const RunExperimentInput = type({ "+": "reject", plan_id: type("0 < string <= 128").describe("the plan_id from plan_experiment (single use)") });
export const ExperimentIdInput = type({ "+": "reject", experiment_id: id("an experiment id (exp_…)") });
export const ListTrialsInput = type({ "+": "reject", experiment_id: id("an experiment id (exp_…)"), "limit?": limit, "cursor?": cursor });

export { ComparisonResultSchema, ExperimentPlanResult, ExperimentResult, MeasurementsPageResult, RunSetResult, ScalingResultSchema, TrialPageResult } from "./study-results.ts";
