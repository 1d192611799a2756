/**
 * What to ask next about a file just imported, as an MCP tool and its arguments: the
 * analysis the extracted evidence supports, judged from the rows each table received. A
 * profile (or a trace with slices) goes to hotspots, a trace without slices to its time
 * bounds, an OTLP trace to its operations, a test report to its failures, coverage data
 * to its lines per file, benchmark results to their measurements; anything else to the
 * evidence inventory of the run.
 */
import { traceEventRows } from "../domain/trace-event-rows.ts";

export interface NextStep {
  next_tool: string;
  next_arguments: Record<string, unknown>;
}

export function nextStepAfterImport(
  runId: string,
  artifactId: string,
  tables: Readonly<Record<string, number>>,
): NextStep {
  const has = (table: string) => (tables[table] ?? 0) > 0;
  // A window of [0, 0] answers with the trace's bounds to choose a real window from.
  const bounds = { artifact_id: artifactId, start_ns: "0", end_ns: "0" };
  if (has("frame_measurements"))
    return { next_tool: "analyze_hotspots", next_arguments: { run_or_artifact: runId } };
  if ((traceEventRows(tables) ?? 0) > 0)
    return { next_tool: "get_trace_window", next_arguments: bounds };
  if (has("otel_spans")) return { next_tool: "get_operation_window", next_arguments: bounds };
  if (has("test_results"))
    return { next_tool: "analyze_failures", next_arguments: { run_or_artifact: runId } };
  if (has("coverage_lines"))
    return { next_tool: "analyze_coverage", next_arguments: { run_or_artifact: runId } };
  if (has("measurements"))
    return { next_tool: "query_measurements", next_arguments: { run_id: runId } };
  return { next_tool: "get_evidence", next_arguments: { ref_type: "run", ref_id: runId } };
}
