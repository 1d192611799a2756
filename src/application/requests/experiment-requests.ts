/**
 * The experiment requests: plan, run, look up, list trials, scaling (`flameox experiment`,
 * `analyze scaling` and the experiment tools).
 */
import { type } from "arktype";
import type { StudyService } from "../study/study-service.ts";
import { cursor, pageLimit, recordId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const ExperimentPlanRequest = defineRequest(
  "experiment plan",
  type({
    "+": "reject",
    experiment_name: type("0 < string <= 64").describe(
      "an [experiments.NAME] entry of flameox.toml",
    ),
    "investigation_id?": recordId("an investigation id").or("null"),
    "hypothesis_id?": recordId("a hypothesis id").or("null"),
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
  type({ "+": "reject", experiment_id: recordId("an experiment id (exp_…)") }),
);
export type ExperimentLookupRequest = typeof ExperimentLookupRequest.infer;

export const TrialsPageRequest = defineRequest(
  "trials listing",
  type({
    "+": "reject",
    experiment_id: recordId("an experiment id (exp_…)"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type TrialsPageRequest = typeof TrialsPageRequest.infer;

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
