/**
 * Results of the OTLP lifecycle tools (get_operation_window, get_operation_transitions,
 * get_lifecycle_gaps); their inputs are requests in application/requests/otel-requests.ts.
 */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

export const OperationItem = type({
  span_index: "number.integer",
  trace_id: "string",
  span_id: "string",
  parent_span_id: "string | null",
  name: "string",
  kind: "string",
  start_unix_nano: "string",
  end_unix_nano: "string",
  duration_ns: "number",
  status_code: "string",
});
export const OperationWindowResult = type({
  ...analysisFields,
  items: OperationItem.array(),
  window: { start_ns: "string", end_ns: "string" },
  trace_id: "string | null",
});

export const TransitionItem = type({
  parent_name: "string",
  child_name: "string",
  depth: "number.integer",
  count: "number.integer",
  total_duration_ns: "number",
  example_trace_id: "string",
});
export const TransitionsResult = type({
  ...analysisFields,
  items: TransitionItem.array(),
  max_depth: "number.integer",
  trace_id: "string | null",
});

export const GapItem = type({
  kind: "string",
  count: "number.integer",
  examples: type({ trace_id: "string", span_id: "string", name: "string" }).array(),
});
export const GapsResult = type({ ...analysisFields, items: GapItem.array() });
