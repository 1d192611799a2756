/**
 * The requests that draw, compare or rewrite whole profiles: a flamegraph (`flameox
 * flamegraph`), the differential profile of two runs or artifacts (`flameox diff`,
 * diff_profiles), and an export in another tool's format (`flameox export`, `open`).
 * Where the bytes go (a file, a viewer) is the caller's business, not the request's.
 */
import { type } from "arktype";
import { EXPORT_FORMATS } from "../../domain/export-formats.ts";
import { GRANULARITIES } from "../../domain/granularity.ts";
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
    "sort?": type
      .enumerated("self", "total")
      .describe("self (default) or total: the change that ranks the rows"),
    "normalize?": type("boolean").describe(
      "scale the base to the candidate's total before subtracting (pprof -normalize)",
    ),
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

export const FlamegraphRequest = defineRequest(
  "flamegraph",
  type({
    "+": "reject",
    run_or_artifact: subject,
    "diff_base?": subject
      .or("null")
      .describe("a base run or artifact: colour each box by its change from the base"),
    format: type.enumerated("html", "svg").describe("html (search, zoom, tooltips) or svg"),
    "metric?": metric,
    "granularity?": type
      .enumerated(...GRANULARITIES)
      .describe("boxes per function (name + file, default), per line or per file"),
    "filter?": type("0 < string <= 500")
      .or("null")
      .describe("keep only stacks with a frame matching this regular expression"),
    "icicle?": type("boolean").describe("draw the root at the top"),
    "width_px?": type("200 <= number.integer <= 20000").describe(
      "picture width in pixels (default 1200); boxes under half a pixel are merged",
    ),
  }),
);
export type FlamegraphRequest = typeof FlamegraphRequest.infer;

export function answerFlamegraph(service: WorkspaceService, request: FlamegraphRequest) {
  return service.views().flamegraph({
    subject: request.run_or_artifact,
    diffBase: request.diff_base ?? null,
    format: request.format,
    metric: request.metric,
    granularity: request.granularity,
    filter: request.filter ?? null,
    icicle: request.icicle,
    widthPx: request.width_px,
  });
}

export function answerProfileDiff(service: WorkspaceService, request: ProfileDiffRequest) {
  return service.views().diffProfiles(request);
}

export function answerProfileExport(service: WorkspaceService, request: ProfileExportRequest) {
  return service.views().exportProfile({
    subject: request.run_or_artifact,
    format: request.format,
    metric: request.metric,
  });
}
