/** get_operation_window, get_operation_transitions, get_lifecycle_gaps: OTLP lifecycle observations. Read-only and bounded. */
import { GapsInput, GapsResult, OperationWindowInput, OperationWindowResult, TransitionsInput, TransitionsResult } from "../schemas/otel.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const evidenceLine = (e: { status: string; reason: string }) => `evidence ${e.status}: ${e.reason}`;
const paging = (r: { returned: number; total: number; next_cursor: string | null }) => `${r.returned} of ${r.total}${r.next_cursor ? "; more with next_cursor" : ""}`;

export const getOperationWindow = defineTool({
  name: "get_operation_window",
  title: "OTLP operation window",
  description:
    "Spans of one imported OTLP trace overlapping [start_ns, end_ns] (unix ns), optionally of one trace_id, ordered by start (≤1000 per page). " +
    "Observations only. Next: get_operation_transitions for the parent→child structure.",
  annotations: READ_ONLY,
  input: OperationWindowInput,
  result: OperationWindowResult,
  pageable: true,
  run: async (args, { session }) =>
    (await session.open()).operationWindow(args.artifact_id, { startNs: BigInt(args.start_ns), endNs: BigInt(args.end_ns), traceId: args.trace_id?.toLowerCase() ?? null, limit: args.limit, cursor: args.cursor }),
  summarize: (r) => `operation window [${r.window.start_ns}, ${r.window.end_ns}] of ${r.inputs.subject.id}: ${paging(r)} spans; ${evidenceLine(r.evidence)}`,
});

export const getOperationTransitions = defineTool({
  name: "get_operation_transitions",
  title: "OTLP operation transitions",
  description: "Parent→child span name transitions of one imported OTLP trace, with counts and child time, down to max_depth (default 8). Paginated.",
  annotations: READ_ONLY,
  input: TransitionsInput,
  result: TransitionsResult,
  pageable: true,
  run: async (args, { session }) =>
    (await session.open()).operationTransitions(args.artifact_id, { maxDepth: args.max_depth, traceId: args.trace_id?.toLowerCase() ?? null, limit: args.limit, cursor: args.cursor }),
  summarize: (r) => `transitions of ${r.inputs.subject.id} (max depth ${r.max_depth}): ${paging(r)}; ${evidenceLine(r.evidence)}`,
});

export const getLifecycleGaps = defineTool({
  name: "get_lifecycle_gaps",
  title: "OTLP lifecycle gaps",
  description: "Gaps in one imported OTLP trace: spans whose parent is missing, bad or reversed timestamps, invalid or duplicate ids; counts with examples.",
  annotations: READ_ONLY,
  input: GapsInput,
  result: GapsResult,
  run: async (args, { session }) => (await session.open()).lifecycleGaps(args.artifact_id, { limit: args.limit }),
  summarize: (r) => `lifecycle gaps of ${r.inputs.subject.id}: ${r.items.map((g) => `${g.kind} ${g.count}`).join(", ") || "none"}; ${evidenceLine(r.evidence)}`,
});
