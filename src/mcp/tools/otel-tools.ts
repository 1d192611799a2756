/**
 * get_operation_window, get_operation_transitions, get_lifecycle_gaps: OTLP lifecycle observations.
 * Read-only and bounded.
 */
import {
  answerLifecycleGaps,
  answerOperationTransitions,
  answerOperationWindow,
  LifecycleGapsRequest,
  OperationTransitionsRequest,
  OperationWindowRequest,
} from "../../application/requests/otel-requests.ts";
import { GapsResult, OperationWindowResult, TransitionsResult } from "../schemas/otel.ts";
import { toolPage, longLimit } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const evidenceLine = (e: { status: string; reason: string }) => `evidence ${e.status}: ${e.reason}`;
const paging = (r: { returned: number; total: number; next_cursor: string | null }) =>
  `${r.returned} of ${r.total}${r.next_cursor ? "; more with next_cursor" : ""}`;

export const getOperationWindow = defineTool({
  name: "get_operation_window",
  title: "OTLP operation window",
  description:
    "Spans of one imported OTLP trace overlapping [start_ns, end_ns] (unix ns), optionally " +
    "of one trace_id, ordered by start (≤1000 per page). " +
    "Observations only. Next: get_operation_transitions for the parent→child structure.",
  annotations: READ_ONLY,
  input: toolPage(OperationWindowRequest, longLimit),
  result: OperationWindowResult,
  pageable: true,
  run: async (request, { session }) => answerOperationWindow(await session.open(), request),
  summarize: (r) =>
    `operation window [${r.window.start_ns}, ${r.window.end_ns}] ` +
    `of ${r.inputs.subject.id}: ${paging(r)} spans; ${evidenceLine(r.evidence)}`,
});

export const getOperationTransitions = defineTool({
  name: "get_operation_transitions",
  title: "OTLP operation transitions",
  description:
    "Parent→child span name transitions of one imported OTLP trace, with counts and child " +
    "time, down to max_depth (default 8). Paginated.",
  annotations: READ_ONLY,
  input: toolPage(OperationTransitionsRequest, longLimit),
  result: TransitionsResult,
  pageable: true,
  run: async (request, { session }) => answerOperationTransitions(await session.open(), request),
  summarize: (r) =>
    `transitions of ${r.inputs.subject.id} (max ` +
    `depth ${r.max_depth}): ${paging(r)}; ${evidenceLine(r.evidence)}`,
});

export const getLifecycleGaps = defineTool({
  name: "get_lifecycle_gaps",
  title: "OTLP lifecycle gaps",
  description:
    "Gaps in one imported OTLP trace: spans whose parent is missing, bad or reversed " +
    "timestamps, invalid or duplicate ids; counts with examples.",
  annotations: READ_ONLY,
  input: toolPage(LifecycleGapsRequest, longLimit),
  result: GapsResult,
  run: async (request, { session }) => answerLifecycleGaps(await session.open(), request),
  summarize: (r) =>
    `lifecycle gaps of ${r.inputs.subject.id}: ` +
    `${r.items.map((g) => `${g.kind} ${g.count}`).join(", ") || "none"}; ` +
    `${evidenceLine(r.evidence)}`,
});
