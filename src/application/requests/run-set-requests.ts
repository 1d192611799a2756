/** The requests of `flameox run-sets freeze|show` and the freeze_run_set tool. */
import { type } from "arktype";
import { MAX_RUN_SET_MEMBERS } from "../study/run-sets.ts";
import type { StudyService } from "../study/study-service.ts";
import { recordId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const RunSetFreezeRequest = defineRequest(
  "run set",
  type({
    "+": "reject",
    "run_ids?": recordId("a run id").array().atMostLength(MAX_RUN_SET_MEMBERS),
    "members?": type({
      "+": "reject",
      run_id: recordId("a run id"),
      "trial_id?": recordId("a trial id").or("null"),
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
  type({ "+": "reject", run_set_id: recordId("a run set id (rs_…)") }),
);
export type RunSetLookupRequest = typeof RunSetLookupRequest.infer;

export const answerRunSet = (study: StudyService, r: RunSetLookupRequest) =>
  study.getRunSet(r.run_set_id);

export const answerRunSetFreeze = (study: StudyService, r: RunSetFreezeRequest) =>
  study.freezeRunSet(r);
