/**
 * Results of analyze_accelerator_timeline and analyze_operators (their inputs are requests in
 * application/requests/recipe-requests.ts).
 */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

export const StreamTimeline = type({
  track_id: "string",
  device: "string | null",
  stream: "string | null",
  activities: "number.integer",
  kernels: "number.integer",
  busy_ns: "number",
  busy_fraction: "number",
  idle_gaps: "number.integer",
  longest_gap_ns: "number",
});

export const AcceleratorResult = type({
  ...analysisFields,
  items: StreamTimeline.array(),
  window: type({ start_ns: "string", end_ns: "string", span_ns: "number" }).or("null"),
  min_gap_ns: "number",
  gaps: type({
    track_id: "string",
    start_ns: "string",
    end_ns: "string",
    duration_ns: "number",
    host: type({ name: "string", overlap_ns: "number" }).array(),
  }).array(),
  launch_latency: type({
    matched: "number.integer",
    unmatched: "number.integer",
    min_ns: "number",
    p50_ns: "number",
    p90_ns: "number",
    p99_ns: "number",
    max_ns: "number",
  }).or("null"),
});

export const OperatorsResult = type({
  ...analysisFields,
  items: type({
    name: "string",
    calls: "number.integer",
    cpu_total_ns: "number",
    cpu_self_ns: "number",
    gpu_self_ns: "number",
    gpu_total_ns: "number",
    launches: "number.integer",
  }).array(),
  totals: {
    operators: "number.integer",
    calls: "number.integer",
    gpu_ns: "number",
    gpu_unattributed_ns: "number",
    device_activities: "number.integer",
  },
});
