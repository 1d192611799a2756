/** Inputs and results of the OTLP lifecycle tools (get_operation_window, get_operation_transitions, get_lifecycle_gaps). */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const artifactId = type("0 < string <= 200").describe("an artifact id of an imported OTLP trace (sha256:…, or a unique hex prefix of at least 8 characters)");
const cursor = type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page");
const limit = type("1 <= number.integer <= 1000").describe("a page size from 1 to 1000");
const unixNanos = type(/^[0-9]{1,20}$/).or("0 <= number.integer <= 9007199254740991").describe("unix nanoseconds, as an integer string or a safe integer");
const traceId = type(/^[0-9a-fA-F]{32}$/).or("null").describe("only spans of this trace (32 hex digits), or null for all");

export const OperationWindowInput = type({ "+": "reject", artifact_id: artifactId, start_ns: unixNanos, end_ns: unixNanos, "trace_id?": traceId, "limit?": limit, "cursor?": cursor });
export const TransitionsInput = type({
  "+": "reject", artifact_id: artifactId, "trace_id?": traceId, "limit?": limit, "cursor?": cursor,
  "max_depth?": type("1 <= number.integer <= 64").describe("deepest parent→child level followed (default 8)"),
});
export const GapsInput = type({ "+": "reject", artifact_id: artifactId, "limit?": limit });

export const OperationItem = type({
  span_index: "number.integer", trace_id: "string", span_id: "string", parent_span_id: "string | null", name: "string", kind: "string",
  start_unix_nano: "string", end_unix_nano: "string", duration_ns: "number", status_code: "string",
});
export const OperationWindowResult = type({ ...analysisFields, items: OperationItem.array(), window: { start_ns: "string", end_ns: "string" }, trace_id: "string | null" });

export const TransitionItem = type({ parent_name: "string", child_name: "string", depth: "number.integer", count: "number.integer", total_duration_ns: "number", example_trace_id: "string" });
export const TransitionsResult = type({ ...analysisFields, items: TransitionItem.array(), max_depth: "number.integer", trace_id: "string | null" });

export const GapItem = type({ kind: "string", count: "number.integer", examples: type({ trace_id: "string", span_id: "string", name: "string" }).array() });
export const GapsResult = type({ ...analysisFields, items: GapItem.array() });
