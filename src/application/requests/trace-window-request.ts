/** The request for a window of one trace's slices and events, in the trace's own clock. */
import { type } from "arktype";
import { FlameoxError } from "../../domain/errors.ts";
import type { WorkspaceService } from "../workspace-service.ts";
import { artifactId, cursor, pageLimit } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

const INT64_MAX = 9223372036854775807n;

/** Nanoseconds as a decimal integer string (int64) or a JSON safe integer. */
const nanoseconds = type(/^-?[0-9]{1,19}$/)
  .or("-9007199254740991 <= number.integer <= 9007199254740991")
  .describe("nanoseconds in the trace clock, as an integer string or a safe integer");

export const TraceWindowRequest = defineRequest(
  "trace window",
  type({
    "+": "reject",
    artifact_id: artifactId,
    start_ns: nanoseconds,
    end_ns: nanoseconds,
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type TraceWindowRequest = typeof TraceWindowRequest.infer;

export function answerTraceWindow(service: WorkspaceService, request: TraceWindowRequest) {
  return service.traceWindow(request.artifact_id, {
    startNs: int64(request.start_ns, "start_ns"),
    endNs: int64(request.end_ns, "end_ns"),
    limit: request.limit,
    cursor: request.cursor,
  });
}

/** Nineteen digits reach past int64; the trace clock is int64 nanoseconds. */
function int64(value: string | number, field: string): bigint {
  const ns = BigInt(value);
  if (ns > INT64_MAX || ns < -INT64_MAX) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Invalid trace window request: ${field} must fit a signed 64-bit integer (was ${value})`,
      { details: { field, fields: [field] } },
    );
  }
  return ns;
}
