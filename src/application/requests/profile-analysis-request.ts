/**
 * The requests of the profile analyses: hotspots, and the drill-down from one frame to
 * its callers, its callees or example stacks through it (one request, the direction
 * named by the command or tool). Each answer function is the use case as its request
 * states it, so neither door maps fields on its own.
 */
import { type } from "arktype";
import type { StackDirection } from "../../analysis/stacks.ts";
import { GRANULARITIES } from "../../domain/granularity.ts";
import type { WorkspaceService } from "../workspace-service.ts";
import { cursor, frameId, metric, pageLimit, subject } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const HotspotsRequest = defineRequest(
  "hotspots",
  type({
    "+": "reject",
    run_or_artifact: subject,
    "limit?": pageLimit,
    "cursor?": cursor,
    "metric?": metric,
    "granularity?": type
      .enumerated(...GRANULARITIES)
      .describe("rows per function (default, as pprof -top), per stored frame (line) or per file"),
    "exclude_pseudo_frames?": type("boolean").describe(
      "leave out (idle), (program), (garbage collector) and (root); the result says what was " +
        "left out",
    ),
  }),
);
export type HotspotsRequest = typeof HotspotsRequest.infer;

export const FrameDrillRequest = defineRequest(
  "frame drill-down",
  type({
    "+": "reject",
    run_or_artifact: subject,
    frame_id: frameId,
    "limit?": pageLimit,
    "cursor?": cursor,
    "metric?": metric,
    // Not "file": a drill-down follows one function's (or one line's) calls.
    "granularity?": type
      .enumerated("function", "line")
      .describe(
        "all of the frame's function (default, as hotspots' rows) or the stored frame alone (line)",
      ),
  }),
);
export type FrameDrillRequest = typeof FrameDrillRequest.infer;

export function answerHotspots(service: WorkspaceService, request: HotspotsRequest) {
  return service.analyzeHotspots(request.run_or_artifact, {
    limit: request.limit,
    cursor: request.cursor,
    metric: request.metric,
    granularity: request.granularity,
    excludePseudoFrames: request.exclude_pseudo_frames,
  });
}

export function answerFrameDrill(
  service: WorkspaceService,
  direction: StackDirection,
  request: FrameDrillRequest,
) {
  return service.stacks(direction, request.run_or_artifact, request.frame_id, {
    limit: request.limit,
    cursor: request.cursor,
    metric: request.metric,
    granularity: request.granularity,
  });
}
