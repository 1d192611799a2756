/**
 * analyze_hotspots, get_frame_callers|callees, get_stack_examples, get_trace_window. Read-only and
 * bounded.
 */
import type { StackDirection } from "../../analysis/stacks.ts";
import {
  answerFrameDrill,
  answerHotspots,
  FrameDrillRequest,
  HotspotsRequest,
} from "../../application/requests/profile-analysis-request.ts";
import {
  answerTraceWindow,
  TraceWindowRequest,
} from "../../application/requests/trace-window-request.ts";
import { HotspotsResult, StacksResult, TraceWindowResult } from "../schemas/analysis.ts";
import { listLimit, toolPage, longLimit } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const evidenceLine = (e: { status: string; reason: string }) => `evidence ${e.status}: ${e.reason}`;
const paging = (r: { returned: number; total: number; next_cursor: string | null }) =>
  `${r.returned} of ${r.total}${r.next_cursor ? "; more with next_cursor" : ""}`;

export const analyzeHotspots = defineTool({
  name: "analyze_hotspots",
  title: "Analyze hotspots",
  description:
    "Top functions by self time for a run or artifact (sampled cpu_time when available, else " +
    "trace wall_time), with evidence status and " +
    "limitations. Next: get_frame_callers / get_frame_callees / get_stack_examples with a " +
    "frame_id from the items.",
  annotations: READ_ONLY,
  input: toolPage(HotspotsRequest, listLimit),
  result: HotspotsResult,
  pageable: true,
  run: async (request, { session }) => answerHotspots(await session.open(), request),
  summarize: (r) =>
    [
      `hotspots (${r.metric ?? "no metric"}) ` +
        `at ${r.corpus_commit_id}: ${paging(r)}; ${evidenceLine(r.evidence)}`,
      ...r.items
        .slice(0, 3)
        .map(
          (h) =>
            `#${h.rank} ${h.function} (${h.frame_id}) self ${(100 * h.self_fraction).toFixed(1)}%`,
        ),
    ].join("\n"),
});

const frameDrill = toolPage(FrameDrillRequest, listLimit);

function stacksTool(direction: StackDirection, name: string, title: string, description: string) {
  return defineTool({
    name,
    title,
    description,
    annotations: READ_ONLY,
    input: frameDrill,
    result: StacksResult,
    pageable: true,
    run: async (request, { session }) => answerFrameDrill(await session.open(), direction, request),
    summarize: (r) =>
      `${direction} of ${r.frame.function} ` +
      `(${r.frame.frame_id}), ${r.metric ?? "no metric"}: ${paging(r)}; ` +
      `${evidenceLine(r.evidence)}`,
  });
}

export const getFrameCallers = stacksTool(
  "callers",
  "get_frame_callers",
  "Frame callers",
  "The frames that call frame_id, by time spent in the call. Paginated.",
);
export const getFrameCallees = stacksTool(
  "callees",
  "get_frame_callees",
  "Frame callees",
  "The frames frame_id calls, by time spent in them. Paginated.",
);
export const getStackExamples = stacksTool(
  "examples",
  "get_stack_examples",
  "Stack examples",
  "Representative full stacks through frame_id (root to leaf, deepest 128 frames kept), " +
    "heaviest first. Paginated.",
);

export const getTraceWindow = defineTool({
  name: "get_trace_window",
  title: "Trace window",
  description:
    "Slices and events of one trace artifact overlapping [start_ns, end_ns] in the trace " +
    "clock, ordered by time (≤1000 per page). " +
    "The result's trace_bounds gives the trace's extent for choosing a window.",
  annotations: READ_ONLY,
  input: toolPage(TraceWindowRequest, longLimit),
  result: TraceWindowResult,
  pageable: true,
  run: async (request, { session }) => answerTraceWindow(await session.open(), request),
  summarize: (r) =>
    `window [${r.window.start_ns}, ${r.window.end_ns}] ` +
    `of ${r.inputs.subject.id}: ${paging(r)} events; trace spans ` +
    `[${r.trace_bounds.start_ns}, ${r.trace_bounds.end_ns}]; ${evidenceLine(r.evidence)}`,
});
