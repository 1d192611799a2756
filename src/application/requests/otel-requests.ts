/**
 * The requests over one imported OTLP trace: an operation window, parent→child transitions,
 * lifecycle gaps.
 */
import { type } from "arktype";
import type { WorkspaceService } from "../workspace-service.ts";
import { cursor, pageLimit } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

const otlpArtifact = type("0 < string <= 200").describe(
  "an artifact id of an imported OTLP trace (sha256:…, or a unique hex prefix of at least 8 " +
    "characters)",
);
const unixNanos = type(/^[0-9]{1,20}$/)
  .or("0 <= number.integer <= 9007199254740991")
  .describe("unix nanoseconds, as an integer string or a safe integer");
const traceId = type(/^[0-9a-fA-F]{32}$/)
  .or("null")
  .describe("only spans of this trace (32 hex digits), or null for all");

export const OperationWindowRequest = defineRequest(
  "operation window",
  type({
    "+": "reject",
    artifact_id: otlpArtifact,
    start_ns: unixNanos,
    end_ns: unixNanos,
    "trace_id?": traceId,
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type OperationWindowRequest = typeof OperationWindowRequest.infer;

export const OperationTransitionsRequest = defineRequest(
  "operation transitions",
  type({
    "+": "reject",
    artifact_id: otlpArtifact,
    "trace_id?": traceId,
    "limit?": pageLimit,
    "cursor?": cursor,
    "max_depth?": type("1 <= number.integer <= 64").describe(
      "deepest parent→child level followed (default 8)",
    ),
  }),
);
export type OperationTransitionsRequest = typeof OperationTransitionsRequest.infer;

export const LifecycleGapsRequest = defineRequest(
  "lifecycle gaps",
  type({ "+": "reject", artifact_id: otlpArtifact, "limit?": pageLimit }),
);
export type LifecycleGapsRequest = typeof LifecycleGapsRequest.infer;

export function answerOperationWindow(service: WorkspaceService, request: OperationWindowRequest) {
  return service.operations().window(request.artifact_id, {
    startNs: BigInt(request.start_ns),
    endNs: BigInt(request.end_ns),
    traceId: request.trace_id?.toLowerCase() ?? null,
    limit: request.limit,
    cursor: request.cursor,
  });
}

export function answerOperationTransitions(
  service: WorkspaceService,
  request: OperationTransitionsRequest,
) {
  return service.operations().transitions(request.artifact_id, {
    maxDepth: request.max_depth,
    traceId: request.trace_id?.toLowerCase() ?? null,
    limit: request.limit,
    cursor: request.cursor,
  });
}

export function answerLifecycleGaps(service: WorkspaceService, request: LifecycleGapsRequest) {
  return service.operations().gaps(request.artifact_id, { limit: request.limit });
}
