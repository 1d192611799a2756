/**
 * The requests that compare or rewrite whole profiles: the differential profile of two
 * runs or artifacts (`flameox diff`, diff_profiles), and an export in another tool's
 * format (`flameox export`).
 */
import { type } from "arktype";
import { EXPORT_FORMATS } from "../../domain/export-formats.ts";
import type { WorkspaceService } from "../workspace-service.ts";
import { cursor, metric, pageLimit, subject } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const ProfileDiffRequest = defineRequest(
  "profile diff",
  type({
    "+": "reject",
    base: subject,
    candidate: subject,
    "metric?": metric,
    "sort?": type.enumerated("self", "total").describe("self (default) or total: the change that ranks the rows"),
    "normalize?": type("boolean").describe("scale the base to the candidate's total before subtracting (pprof -normalize)"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type ProfileDiffRequest = typeof ProfileDiffRequest.infer;

export const ProfileExportRequest = defineRequest(
  "profile export",
  type({
    "+": "reject",
    run_or_artifact: subject,
    format: type.enumerated(...EXPORT_FORMATS).describe(EXPORT_FORMATS.join(" | ")),
    "metric?": metric,
  }),
);
export type ProfileExportRequest = typeof ProfileExportRequest.infer;

export function answerProfileDiff(service: WorkspaceService, request: ProfileDiffRequest) {
  return service.views().diffProfiles(request);
}

export function answerProfileExport(service: WorkspaceService, request: ProfileExportRequest) {
  return service.views().exportProfile({ subject: request.run_or_artifact, format: request.format, metric: request.metric });
}
