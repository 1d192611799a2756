/** Input and result of analyze_accelerator_timeline. */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const ref = type("0 < string <= 200").describe("a run id (run_…) or an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)");

export const AcceleratorInput = type({
  "+": "reject",
  run_or_artifact: ref.describe("the run or artifact whose trace is read (an Nsight Systems export, a torch.profiler trace)"),
  "min_gap_ns?": type("0 <= number.integer <= 1000000000000").describe("shortest idle gap on a stream to report, ns (default 1000000: 1 ms)"),
  "limit?": type("1 <= number.integer <= 1000").describe("streams per page, 1 to 1000"),
  "cursor?": type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page"),
});

export const StreamTimeline = type({
  track_id: "string", device: "string | null", stream: "string | null", activities: "number.integer", kernels: "number.integer",
  busy_ns: "number", busy_fraction: "number", idle_gaps: "number.integer", longest_gap_ns: "number",
});

export const AcceleratorResult = type({
  ...analysisFields,
  items: StreamTimeline.array(),
  window: type({ start_ns: "string", end_ns: "string", span_ns: "number" }).or("null"),
  min_gap_ns: "number",
  gaps: type({ track_id: "string", start_ns: "string", end_ns: "string", duration_ns: "number", host: type({ name: "string", overlap_ns: "number" }).array() }).array(),
  launch_latency: type({ matched: "number.integer", unmatched: "number.integer", min_ns: "number", p50_ns: "number", p90_ns: "number", p99_ns: "number", max_ns: "number" }).or("null"),
});

export const OperatorsInput = type({
  "+": "reject",
  run_or_artifact: ref.describe("the run or artifact whose torch.profiler trace is read"),
  "limit?": type("1 <= number.integer <= 1000").describe("operators per page, 1 to 1000"),
  "cursor?": type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page"),
});

export const OperatorsResult = type({
  ...analysisFields,
  items: type({ name: "string", calls: "number.integer", cpu_total_ns: "number", cpu_self_ns: "number", gpu_self_ns: "number", gpu_total_ns: "number", launches: "number.integer" }).array(),
  totals: { operators: "number.integer", calls: "number.integer", gpu_ns: "number", gpu_unattributed_ns: "number", device_activities: "number.integer" },
});
