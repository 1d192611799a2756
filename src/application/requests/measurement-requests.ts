/** The request of `flameox measurements query` and the query_measurements tool. */
import { type } from "arktype";
import type { StudyService } from "../study/study-service.ts";
import { cursor, pageLimit, recordId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const MeasurementsQueryRequest = defineRequest(
  "measurements query",
  type({
    "+": "reject",
    "run_id?": recordId("a run id (run_…)"),
    "artifact_id?": recordId("an artifact id (sha256:…)"),
    "name_prefix?": type("0 < string <= 200").describe(
      "keep measurements whose name starts with this, e.g. wall_time",
    ),
    "include_warmups?": type("boolean").describe("include warm-up samples (default false)"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type MeasurementsQueryRequest = typeof MeasurementsQueryRequest.infer;

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
