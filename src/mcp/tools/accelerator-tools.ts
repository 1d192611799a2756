/**
 * analyze_accelerator_timeline: device streams' busy time, idle gaps with host activity, launch
 * latency. Read-only and bounded.
 */
import {
  AcceleratorTimelineRequest,
  answerAcceleratorTimeline,
  answerOperators,
  OperatorsRequest,
} from "../../application/requests/recipe-requests.ts";
import { AcceleratorResult, OperatorsResult } from "../schemas/accelerator.ts";
import { recipeLimit, toolPage } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const analyzeAcceleratorTimeline = defineTool({
  name: "analyze_accelerator_timeline",
  title: "Analyze the accelerator timeline",
  description:
    "For an imported GPU trace (Nsight Systems SQLite export, torch.profiler/Kineto Chrome " +
    "trace) of a run or artifact: per device stream " +
    "(paged items, busiest first) the union of its kernels, copies and sets and its busy " +
    "fraction of the device window; the longest idle gaps " +
    "(at least min_gap_ns) with the host threads' top-level slices overlapping each; and the " +
    "launch latency (API call to device start, matched " +
    "by correlation id) as min/p50/p90/p99/max.",
  annotations: READ_ONLY,
  input: toolPage(AcceleratorTimelineRequest, recipeLimit("streams")),
  result: AcceleratorResult,
  pageable: true,
  run: async (request, { session }) => answerAcceleratorTimeline(await session.open(), request),
  summarize: (r) =>
    [
      `accelerator timeline at ${r.corpus_commit_id}: ${r.returned} of ${r.total} streams; ` +
        `evidence ${r.evidence.status}: ${r.evidence.reason}`,
      ...r.items
        .slice(0, 3)
        .map(
          (s) =>
            `${s.device ?? s.track_id} ${s.stream ?? ""}: ` +
            `busy ${(100 * s.busy_fraction).toFixed(1)}%`,
        ),
      r.launch_latency
        ? `launch latency p50 ${r.launch_latency.p50_ns} ns, p99 ${r.launch_latency.p99_ns} ns ` +
          `(${r.launch_latency.matched} matched)`
        : "",
    ]
      .filter(Boolean)
      .join("\n"),
});

export const analyzeOperators = defineTool({
  name: "analyze_operators",
  title: "Analyze operators of a torch.profiler trace",
  description:
    "For an imported torch.profiler (Kineto) trace of a run or artifact: per operator " +
    "(cpu_op) the calls, CPU total and self time (less the " +
    "operators it called), and the GPU time of the kernels, copies and sets it launched " +
    "(gpu_self_ns) and that its callees launched too " +
    "(gpu_total_ns), attributed by correlation id; paged, by CPU total. " +
    "totals.gpu_unattributed_ns is device time no operator launched.",
  annotations: READ_ONLY,
  input: toolPage(OperatorsRequest, recipeLimit("operators")),
  result: OperatorsResult,
  pageable: true,
  run: async (request, { session }) => answerOperators(await session.open(), request),
  summarize: (r) =>
    [
      `operators at ${r.corpus_commit_id}: ${r.returned} of ${r.total}; ` +
        `evidence ${r.evidence.status}: ${r.evidence.reason}`,
      ...r.items
        .slice(0, 3)
        .map(
          (o) => `${o.name}: ${o.calls} calls, CPU ${o.cpu_total_ns} ns, GPU ${o.gpu_total_ns} ns`,
        ),
    ].join("\n"),
});
