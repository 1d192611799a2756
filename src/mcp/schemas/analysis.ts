/** Result schemas of the analysis tools: hotspots, stack drill-down and trace windows. */
import { type } from "arktype";
import { analysisFields } from "./common.ts";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";

const metric = type.enumerated(...FRAME_METRICS);

export const Hotspot = type({
  rank: "number.integer >= 1",
  frame_id: "string",
  frames: "number.integer >= 1",
  function: "string",
  language: "string",
  module: "string | null",
  file: "string | null",
  line: "number | null",
  column: "number | null",
  symbolization: "string",
  self_value: "number",
  inclusive_value: "number",
  self_fraction: "number",
  inclusive_fraction: "number",
  self_samples: "number",
  inclusive_samples: "number",
  unit: "string",
});

export const HotspotsResult = type({
  ...analysisFields,
  items: Hotspot.array(),
  metric: metric.or("null"),
  metrics_available: metric.array(),
  coverage: {
    total_self_value: "number",
    total_samples: "number",
    frames: "number.integer >= 0",
    symbolized_fraction: "number | null",
  },
  granularity: "'function' | 'line' | 'file'",
  excluded: type({ functions: "string[]", self_value: "number", self_fraction: "number" }).or(
    "null",
  ),
});

const frameRefFields = {
  frame_id: "string",
  function: "string",
  file: "string | null",
  line: "number | null",
} as const;
export const FrameRef = type(frameRefFields);
export const EdgeItem = type({ ...frameRefFields, sample_count: "number", duration_ns: "number" });
export const StackExample = type({
  stack_id: "string",
  sample_count: "number",
  duration_ns: "number",
  depth: "number.integer >= 0",
  frames: FrameRef.array(),
  frames_truncated: "boolean",
});

export const StacksResult = type({
  ...analysisFields,
  items: EdgeItem.or(StackExample).array(),
  direction: "'callers' | 'callees' | 'examples'",
  frame: FrameRef,
  metric: metric.or("null"),
  granularity: "'function' | 'line' | 'file'",
  frames: "number.integer >= 1",
});

export const TraceEventItem = type({
  event_index: "number.integer",
  name: "string",
  category: "string | null",
  phase: "string",
  ts_ns: "string",
  dur_ns: "number | null",
  thread_dur_ns: "number | null",
  depth: "number.integer",
  track_id: "string",
  process_name: "string | null",
  thread_name: "string | null",
  args_json: "string | null",
  flags: "string | null",
});

export const TraceWindowResult = type({
  ...analysisFields,
  items: TraceEventItem.array(),
  window: { start_ns: "string", end_ns: "string" },
  trace_bounds: { start_ns: "string | null", end_ns: "string | null" },
});
