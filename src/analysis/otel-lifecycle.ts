/**
 * OTLP lifecycle queries over one trace artifact's otel_spans: the operations overlapping
 * a time window, parent→child transitions (to a maximum depth) and lifecycle gaps (bad
 * timestamps, bad identities, missing parents). Observations only: the spans say what the
 * exporter reported, never why.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import type { EvidenceEngine } from "./evidence-engine.ts";
import type { Subject } from "./subject.ts";
import { OTEL_SPAN_COLUMNS, OTEL_SQL } from "./otel-sql.ts";

export const OTEL_LIFECYCLE_VERSION = "1";

export interface OperationItem {
  span_index: number;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string;
  start_unix_nano: string;
  end_unix_nano: string;
  duration_ns: number;
  status_code: string;
}

export interface TransitionItem {
  parent_name: string;
  child_name: string;
  depth: number;
  count: number;
  total_duration_ns: number;
  example_trace_id: string;
}

export interface GapItem {
  kind:
    | "missing_parent"
    | "invalid_timestamps"
    | "invalid_trace_id"
    | "invalid_span_id"
    | "duplicate_span_id";
  count: number;
  examples: { trace_id: string; span_id: string; name: string }[];
}

export type OperationWindowResult = AnalysisResult<OperationItem> & {
  window: { start_ns: string; end_ns: string };
  trace_id: string | null;
};
export type TransitionsResult = AnalysisResult<TransitionItem> & {
  max_depth: number;
  trace_id: string | null;
};
export type GapsResult = AnalysisResult<GapItem>;

interface Page {
  limit: number;
  cursor?: string | null;
}

async function spansOf(
  engine: EvidenceEngine,
  snapshot: SnapshotHandle,
  subject: Subject,
  recipe: string,
) {
  const generations = subject.generations.filter((g) => g.tables.otel_spans !== undefined);
  const base = resultBase(
    { name: recipe, version: OTEL_LIFECYCLE_VERSION, claimLevel: "observed" },
    snapshot,
    subject,
    generations,
  );
  const withSpans = generations.filter((g) => (g.tables.otel_spans ?? 0) > 0);
  if (withSpans.length > 0)
    await engine.ensureTable(snapshot, "otel_spans", withSpans, OTEL_SPAN_COLUMNS);
  const empty =
    withSpans.length === 0
      ? {
          evidence:
            generations.length === 0
              ? {
                  status: "unavailable" as const,
                  reason:
                    "no_otlp_trace: no extracted OTLP trace for this subject in the pinned commit",
                  next_tool: "import_artifact",
                }
              : { status: "empty" as const, reason: "the OTLP trace has no spans" },
          items: [],
          total: 0,
          returned: 0,
          truncated: false,
          next_cursor: null,
        }
      : null;
  return { base, empty };
}

function paged<T>(
  items: T[],
  total: number,
  offset: number,
  binding: Parameters<typeof encodeCursor>[0],
) {
  const end = offset + items.length;
  return {
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}

export async function operationWindow(
  engine: EvidenceEngine,
  snapshot: SnapshotHandle,
  subject: Subject,
  options: Page & { startNs: bigint; endNs: bigint; traceId: string | null },
): Promise<OperationWindowResult> {
  for (const [field, value] of [
    ["start", options.startNs],
    ["end", options.endNs],
  ] as const) {
    if (value < -(2n ** 63n) || value >= 2n ** 63n)
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected ${field} to fit a signed 64-bit integer but found ${value}`,
        { details: { field } },
      );
  }
  if (options.endNs < options.startNs)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected end to be at least start but found ${options.endNs} < ${options.startNs}`,
      { details: { field: "end" } },
    );
  const window = { start_ns: options.startNs.toString(), end_ns: options.endNs.toString() };
  const binding = {
    query: `otel_operation_window@${OTEL_LIFECYCLE_VERSION}`,
    filters: { subject: subject.id, ...window, trace: options.traceId },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const { base, empty } = await spansOf(engine, snapshot, subject, "otel_operation_window");
  if (empty) return { ...base, ...empty, window, trace_id: options.traceId };
  const params = [options.endNs, options.startNs, options.traceId, options.traceId];
  const total = Number(engine.query("otel.window.total", OTEL_SQL.windowTotal, params)[0]?.n ?? 0);
  const rows = engine.query("otel.window.page", OTEL_SQL.windowPage, [
    ...params,
    options.limit,
    offset,
  ]);
  const items = rows.map((r) => ({
    span_index: Number(r.span_index),
    trace_id: String(r.trace_id),
    span_id: String(r.span_id),
    parent_span_id: (r.parent_span_id as string | null) ?? null,
    name: String(r.name),
    kind: String(r.kind),
    start_unix_nano: String(r.start_unix_nano),
    end_unix_nano: String(r.end_unix_nano),
    duration_ns: Number(r.duration_ns),
    status_code: String(r.status_code),
  }));
  const evidence =
    total === 0
      ? { status: "empty" as const, reason: "no spans overlap this window" }
      : { status: "available" as const, reason: `${total} spans overlap the window` };
  return {
    ...base,
    evidence,
    ...paged(items, total, offset, binding),
    window,
    trace_id: options.traceId,
  };
}

export async function operationTransitions(
  engine: EvidenceEngine,
  snapshot: SnapshotHandle,
  subject: Subject,
  options: Page & { maxDepth: number; traceId: string | null },
): Promise<TransitionsResult> {
  const binding = {
    query: `otel_transitions@${OTEL_LIFECYCLE_VERSION}`,
    filters: { subject: subject.id, depth: options.maxDepth, trace: options.traceId },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const { base, empty } = await spansOf(engine, snapshot, subject, "otel_transitions");
  if (empty) return { ...base, ...empty, max_depth: options.maxDepth, trace_id: options.traceId };
  const params = [options.traceId, options.traceId, options.maxDepth];
  const all = engine.query("otel.transitions", OTEL_SQL.transitions, params);
  const items = all.slice(offset, offset + options.limit).map((r) => ({
    parent_name: String(r.parent_name),
    child_name: String(r.child_name),
    depth: Number(r.depth),
    count: Number(r.n),
    total_duration_ns: Number(r.total_duration_ns),
    example_trace_id: String(r.example_trace_id),
  }));
  const evidence =
    all.length === 0
      ? { status: "empty" as const, reason: "no parent/child span pairs within the depth limit" }
      : { status: "available" as const, reason: `${all.length} distinct transitions` };
  return {
    ...base,
    claim_level: "derived",
    evidence,
    ...paged(items, all.length, offset, binding),
    max_depth: options.maxDepth,
    trace_id: options.traceId,
  };
}

export async function lifecycleGaps(
  engine: EvidenceEngine,
  snapshot: SnapshotHandle,
  subject: Subject,
  options: { limit: number },
): Promise<GapsResult> {
  const { base, empty } = await spansOf(engine, snapshot, subject, "otel_lifecycle_gaps");
  if (empty) return { ...base, ...empty };
  const items: GapItem[] = [];
  for (const [kind, sql] of Object.entries(OTEL_SQL.gaps) as [GapItem["kind"], string][]) {
    const count = Number(
      engine.query(`otel.gaps.${kind}.count`, `SELECT count(*) AS n FROM (${sql})`, [])[0]?.n ?? 0,
    );
    if (count === 0) continue;
    const examples = engine
      .query(`otel.gaps.${kind}.examples`, `${sql} ORDER BY span_index LIMIT 5`, [])
      .map((r) => ({
        trace_id: String(r.trace_id),
        span_id: String(r.span_id),
        name: String(r.name),
      }));
    items.push({ kind, count, examples });
  }
  const shown = items.slice(0, options.limit);
  const evidence =
    items.length === 0
      ? {
          status: "empty" as const,
          reason: "no gaps: every span has a known parent, valid ids and ordered timestamps",
        }
      : { status: "available" as const, reason: `${items.length} kinds of gaps` };
  return {
    ...base,
    claim_level: "derived",
    evidence,
    items: shown,
    total: items.length,
    returned: shown.length,
    truncated: shown.length < items.length,
    next_cursor: null,
  };
}
