/**
 * query_measurements, freeze_run_set, compare_run_sets, record_comparison, plan/run/get experiment,
 * list_experiment_trials, analyze_scaling.
 */
import {
  answerMeasurementsQuery,
  MeasurementsQueryRequest,
} from "../../application/requests/measurement-requests.ts";
import {
  answerRunSetFreeze,
  RunSetFreezeRequest,
} from "../../application/requests/run-set-requests.ts";
import {
  answerComparison,
  answerRecordedComparison,
  ComparisonRequest,
} from "../../application/requests/comparison-requests.ts";
import {
  answerExperiment,
  answerExperimentPlan,
  answerScaling,
  answerTrialsPage,
  ExperimentLookupRequest,
  ExperimentPlanRequest,
  ExperimentRunRequest,
  TrialsPageRequest,
} from "../../application/requests/experiment-requests.ts";
import { StudyService } from "../../application/study/study-service.ts";
import {
  ComparisonResultSchema,
  ExperimentPlanResult,
  ExperimentResult,
  MeasurementsPageResult,
  RunSetResult,
  ScalingResultSchema,
  TrialPageResult,
} from "../schemas/study.ts";
import { longLimit, toolPage } from "../schemas/tool-pages.ts";
import { ADDITIVE, defineTool, READ_ONLY, type ToolAnnotations } from "../tool.ts";
import { INVESTIGATION_TOOLS } from "./investigation-tools.ts";

/** REFERENCE (b) EXECUTE preset: runs processes. */
const EXECUTE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};
const study = async (session: { open(): Promise<{ ws: StudyService["ws"] }> }) =>
  new StudyService((await session.open()).ws);
const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);

export const queryMeasurements = defineTool({
  name: "query_measurements",
  title: "Query measurements",
  description:
    "Raw benchmark samples (one row per sample, with unit, warm-up flag and " +
    "worker/run/value/loop hierarchy) of a run or artifact. Warm-ups excluded unless " +
    "include_warmups. Paginated.",
  annotations: READ_ONLY,
  input: toolPage(MeasurementsQueryRequest, longLimit),
  result: MeasurementsPageResult,
  pageable: true,
  run: async (request, { session }) => answerMeasurementsQuery(await study(session), request),
  summarize: (r) => `${r.returned} of ${r.total} measurements; evidence ${r.evidence.status}`,
});

export const freezeRunSet = defineTool({
  name: "freeze_run_set",
  title: "Freeze run set",
  description:
    "Pins runs (run_ids, or members with trial/block ids and exclusions with reasons) into " +
    "an immutable run set at the current corpus commit. Next: compare_run_sets.",
  annotations: ADDITIVE,
  input: RunSetFreezeRequest,
  result: RunSetResult,
  run: async (request, { session }) => answerRunSetFreeze(await study(session), request),
  summarize: (r) =>
    `run set ${r.run_set_id}: ${r.members.length} member(s) at ${r.corpus_commit_id}`,
});

function compareTool(name: string, title: string, record: boolean) {
  return defineTool({
    name,
    title,
    description:
      "Paired comparison of two run sets on one metric: median of per-block " +
      "log(candidate/baseline) as a relative change, BCa bootstrap interval (9,999 seeded " +
      "resamples), " +
      "decision against practical_threshold, Wilcoxon p, MAD-flagged outliers, and every " +
      "compatibility mismatch (invalidating ones make validity invalid)." +
      (record
        ? " Persists the result with parameter and result digests."
        : " Read-only preview; record_comparison persists it."),
    annotations: record ? ADDITIVE : READ_ONLY,
    input: ComparisonRequest,
    result: ComparisonResultSchema,
    run: async (request, { session }) =>
      (record ? answerRecordedComparison : answerComparison)(await study(session), request),
    summarize: (r) =>
      `${r.metric}: ${pct(r.relative_change)} ` +
      `[${pct(r.confidence_low)}, ${pct(r.confidence_high)}], ${r.decision}, ` +
      `validity ${r.validity}, ${r.complete_pair_n} pairs`,
  });
}
export const compareRunSets = compareTool("compare_run_sets", "Compare run sets", false);
export const recordComparison = compareTool("record_comparison", "Record comparison", true);

export const planExperiment = defineTool({
  name: "plan_experiment",
  title: "Plan experiment",
  description:
    "Resolves an [experiments.NAME] entry of an approved workload (otherwise " +
    "WORKLOAD_NOT_APPROVED): workload instances per treatment, randomized complete-block " +
    "order from the recorded seed, one capture plan per instance (as plan_capture binds: " +
    "executable digest, policy, source and environment identity; adapter `command`, or the " +
    "declared profile), and a single-use plan_id (TTL 300 s). Runs nothing. Next: " +
    "run_experiment.",
  annotations: READ_ONLY,
  input: ExperimentPlanRequest,
  result: ExperimentPlanResult,
  run: async (request, { session }) => answerExperimentPlan(await study(session), request),
  summarize: (r) =>
    `plan ${r.plan_id.slice(0, 12)}…: ${r.trials_planned} trials; expires ${r.expires_at}`,
});

export const runExperiment = defineTool({
  name: "run_experiment",
  title: "Run experiment",
  description:
    "Consumes a plan_id, rechecks every capture binding and the workload's approval " +
    "(WORKLOAD_CHANGED, WORKLOAD_NOT_APPROVED, SOURCE_CHANGED, … as execute_capture_plan), " +
    "before every trial too,, and runs every trial as a capture run: protocol stored first, " +
    "every attempt registered (failures, timeouts, cancellations), oracles per trial, one " +
    "run set per treatment.",
  annotations: EXECUTE,
  input: ExperimentRunRequest,
  result: ExperimentResult,
  run: async (a, { session, signal, progress }) =>
    (await study(session)).runPlannedExperiment(a.plan_id, {
      signal,
      onProgress: (done, total) => progress("capturing", done, total),
    }),
  summarize: (r) => `experiment ${r.experiment_id}: ${r.status}`,
});

export const getExperiment = defineTool({
  name: "get_experiment",
  title: "Get experiment",
  description:
    "An experiment's stored protocol (design, seed, realized order, metric, estimand, " +
    "threshold) and its outcome counts and run sets.",
  annotations: READ_ONLY,
  input: ExperimentLookupRequest,
  result: ExperimentResult,
  run: async (request, { session }) => answerExperiment(await study(session), request),
  summarize: (r) => `experiment ${r.experiment_id}: ${r.status}`,
});

export const listExperimentTrials = defineTool({
  name: "list_experiment_trials",
  title: "List experiment trials",
  description:
    "Every trial of an experiment in planned order (unattempted cells included): block, " +
    "order in block, variant, outcome, run, oracle receipt. Paginated.",
  annotations: READ_ONLY,
  input: toolPage(TrialsPageRequest, longLimit),
  result: TrialPageResult,
  pageable: true,
  run: async (request, { session }) => answerTrialsPage(await study(session), request),
  summarize: (r) => `${r.returned} of ${r.total} trials of ${r.experiment_id}`,
});

export const analyzeScaling = defineTool({
  name: "analyze_scaling",
  title: "Analyze scaling",
  description:
    "Per input size the median of trial medians with a bootstrap interval; least-squares " +
    "fits (constant, log n, n, n log n, n²) ranked by AICc; a best fit only when it beats " +
    "the runner-up by ≥ 2; with profiled trials, frames whose self time grows with input " +
    "(Spearman ρ, Benjamini–Hochberg q < 0.05), else frame_correlations unavailable. Never " +
    "collects missing trials.",
  annotations: READ_ONLY,
  input: ExperimentLookupRequest,
  result: ScalingResultSchema,
  run: async (request, { session }) => answerScaling(await study(session), request),
  summarize: (r) => `scaling of ${r.experiment_id}: ${r.variants.length} variant(s)`,
});

export const STUDY_TOOLS = [
  queryMeasurements,
  freezeRunSet,
  compareRunSets,
  recordComparison,
  planExperiment,
  runExperiment,
  getExperiment,
  listExperimentTrials,
  analyzeScaling,
  ...INVESTIGATION_TOOLS,
];
