/**
 * Trace window: the slices and events of one artifact that overlap [start, end] ns in the
 * trace's own clock, ordered by time, bounded and paginated. The result also gives the
 * trace's time bounds so a caller can pick a sensible window.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { PartCache } from "./evidence-parts.ts";
import { TRACE_WINDOW_COLUMNS, traceWindowRows } from "./trace-window-reader.ts";
import type { Subject } from "./subject.ts";
import { traceEventRows } from "../domain/trace-event-rows.ts";

export const TRACE_WINDOW_VERSION = "1";
const MAX_ARGS_CHARS = 512;

export interface TraceEventItem {
  event_index: number;
  name: string;
  category: string | null;
  phase: string;
  ts_ns: string;
  dur_ns: number | null;
  /** The slice's thread (CPU) time as the producer measured it (null: not measured). */
  thread_dur_ns: number | null;
  depth: number;
  track_id: string;
  process_name: string | null;
  thread_name: string | null;
  args_json: string | null;
  flags: string | null;
}

export interface TraceWindowResult extends AnalysisResult<TraceEventItem> {
  window: { start_ns: string; end_ns: string };
  trace_bounds: { start_ns: string | null; end_ns: string | null };
}

export interface TraceWindowOptions {
  startNs: bigint;
  endNs: bigint;
  limit: number;
  cursor?: string | null;
}

export async function traceWindow(
  snapshot: SnapshotHandle,
  subject: Subject,
  options: TraceWindowOptions,
  parts: PartCache = new PartCache(0),
): Promise<TraceWindowResult> {
  if (options.endNs < options.startNs) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected end_ns to be at least start_ns but found ${options.endNs} < ${options.startNs}`,
      { details: { field: "end_ns" } },
    );
  }
  const generations = subject.generations.filter((g) => traceEventRows(g.tables) !== undefined);
  const window = { start_ns: options.startNs.toString(), end_ns: options.endNs.toString() };
  const binding = {
    query: `trace_window@${TRACE_WINDOW_VERSION}`,
    filters: { subject: subject.id, ...window },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const base = {
    ...resultBase(
      { name: "trace_window", version: TRACE_WINDOW_VERSION, claimLevel: "observed" },
      snapshot,
      subject,
      generations,
    ),
    window,
  };
  const traced = generations.filter((g) => (traceEventRows(g.tables) ?? 0) > 0);
  if (traced.length === 0) {
    return {
      ...base,
      trace_bounds: { start_ns: null, end_ns: null },
      evidence: {
        status: generations.length === 0 ? "unavailable" : "empty",
        reason:
          generations.length === 0
            ? "no_trace_artifact: no extracted trace for this subject in the pinned commit"
            : "the artifact's extraction produced no trace events (e.g. a sampled profile)",
        next_tool: generations.length === 0 ? "import_artifact" : "analyze_hotspots",
      },
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  const decoded = await parts.partsOf(snapshot, "trace_events", traced, TRACE_WINDOW_COLUMNS);
  const { total, rows, bounds } = traceWindowRows(
    decoded,
    options.startNs,
    options.endNs,
    options.limit,
    offset,
  );
  const items = rows.map(({ part, row }): TraceEventItem => {
    const get = (column: string) => part.arrow.getChild(column)?.get(row) ?? null;
    const argsJson = get("args_json");
    return {
      event_index: Number(get("event_index")),
      name: String(get("name")),
      category: nullableText(get("category")),
      phase: String(get("phase")),
      ts_ns: String(get("ts_ns")),
      dur_ns: nullableNumber(get("dur_ns")),
      thread_dur_ns: nullableNumber(get("thread_dur_ns")),
      depth: Number(get("depth")),
      track_id: String(get("track_id")),
      process_name: nullableText(get("process_name")),
      thread_name: nullableText(get("thread_name")),
      args_json: typeof argsJson === "string" ? argsJson.slice(0, MAX_ARGS_CHARS) : null,
      flags: nullableText(get("flags")),
    };
  });
  const end = offset + items.length;
  return {
    ...base,
    trace_bounds: bounds,
    evidence:
      total === 0
        ? {
            status: "empty",
            reason: "no events overlap this window; see trace_bounds for the trace's extent",
          }
        : { status: "available", reason: `${total} events overlap the window` },
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}

function nullableText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
