/**
 * Trace window: the slices and events of one artifact that overlap [start, end] ns in the
 * trace's own clock, ordered by time, bounded and paginated. The result also gives the
 * trace's time bounds so a caller can pick a sensible window.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import type { SnapshotEngine } from "./snapshot-engine.ts";
import type { Subject } from "./subject.ts";

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

const WHERE = `ts_ns <= ? AND ts_ns + coalesce(dur_ns, 0) >= ?`;
const SQL = {
  page: `SELECT event_index, name, category, phase, CAST(ts_ns AS VARCHAR) AS ts_ns, dur_ns, thread_dur_ns, depth, track_id, process_name, thread_name,
           args_json, flags FROM trace_events WHERE ${WHERE} ORDER BY ts_ns, event_index LIMIT ? OFFSET ?`,
  total: `SELECT count(*) AS n FROM trace_events WHERE ${WHERE}`,
  bounds: `SELECT CAST(min(ts_ns) AS VARCHAR) AS start_ns, CAST(max(ts_ns + coalesce(dur_ns, 0)) AS VARCHAR) AS end_ns FROM trace_events`,
} as const;

export interface TraceWindowOptions {
  startNs: bigint;
  endNs: bigint;
  limit: number;
  cursor?: string | null;
}

export async function traceWindow(engine: SnapshotEngine, snapshot: SnapshotHandle, subject: Subject, options: TraceWindowOptions): Promise<TraceWindowResult> {
  if (options.endNs < options.startNs) {
    throw new FlameoxError("INVALID_ARGUMENTS", `Expected end_ns to be at least start_ns but found ${options.endNs} < ${options.startNs}`, { details: { field: "end_ns" } });
  }
  const generations = subject.generations.filter((g) => g.tables.trace_events !== undefined);
  const window = { start_ns: options.startNs.toString(), end_ns: options.endNs.toString() };
  const binding = { query: `trace_window@${TRACE_WINDOW_VERSION}`, filters: { subject: subject.id, ...window }, commitId: snapshot.commitId };
  const offset = decodeCursor(options.cursor, binding);
  const base = { ...resultBase({ name: "trace_window", version: TRACE_WINDOW_VERSION, claimLevel: "observed" }, snapshot, subject, generations), window };
  const traced = generations.filter((g) => (g.tables.trace_events ?? 0) > 0);
  if (traced.length === 0) {
    return {
      ...base,
      trace_bounds: { start_ns: null, end_ns: null },
      evidence: {
        status: generations.length === 0 ? "unavailable" : "empty",
        reason: generations.length === 0 ? "no_trace_artifact: no extracted trace for this subject in the pinned commit" : "the artifact's extraction produced no trace events (e.g. a sampled profile)",
        next_tool: generations.length === 0 ? "import_artifact" : "analyze_hotspots",
      },
      items: [], total: 0, returned: 0, truncated: false, next_cursor: null,
    };
  }
  await engine.ensureTable("trace_events", traced);
  const bounds = engine.query("trace_window.bounds", SQL.bounds, [])[0] ?? {};
  const total = Number(engine.query("trace_window.total", SQL.total, [options.endNs, options.startNs])[0]?.n ?? 0);
  const rows = engine.query("trace_window.page", SQL.page, [options.endNs, options.startNs, options.limit, offset]);
  const items = rows.map((r) => ({
    event_index: Number(r.event_index),
    name: r.name as string,
    category: (r.category as string | null) ?? null,
    phase: r.phase as string,
    ts_ns: String(r.ts_ns),
    dur_ns: r.dur_ns === null || r.dur_ns === undefined ? null : Number(r.dur_ns),
    thread_dur_ns: r.thread_dur_ns === null || r.thread_dur_ns === undefined ? null : Number(r.thread_dur_ns),
    depth: Number(r.depth),
    track_id: r.track_id as string,
    process_name: (r.process_name as string | null) ?? null,
    thread_name: (r.thread_name as string | null) ?? null,
    args_json: typeof r.args_json === "string" ? r.args_json.slice(0, MAX_ARGS_CHARS) : null,
    flags: (r.flags as string | null) ?? null,
  }));
  const end = offset + items.length;
  return {
    ...base,
    trace_bounds: { start_ns: (bounds.start_ns as string | null) ?? null, end_ns: (bounds.end_ns as string | null) ?? null },
    evidence: total === 0
      ? { status: "empty", reason: "no events overlap this window; see trace_bounds for the trace's extent" }
      : { status: "available", reason: `${total} events overlap the window` },
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}
