/**
 * Drill-down from a frame: who calls it (callers), what it calls (callees), and
 * representative full stacks through it (examples). Queries run on the DuckDB-WASM
 * engine over the pinned snapshot's `call_edges` and `stacks`; frame names are joined
 * from the per-artifact `frames` table.
 */
import { FlameoxError } from "../domain/errors.ts";
import { defaultFrameMetric, type FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { readFrames } from "./hotspots.ts";
import type { SnapshotEngine } from "./snapshot-engine.ts";
import type { Subject } from "./subject.ts";

export type StackDirection = "callers" | "callees" | "examples";
export const STACKS_VERSION = "1";
const MAX_PATH_FRAMES = 128;

export interface FrameRef {
  frame_id: string;
  function: string;
  file: string | null;
  line: number | null;
}

export interface EdgeItem extends FrameRef {
  sample_count: number;
  duration_ns: number;
}

export interface StackExample {
  stack_id: string;
  sample_count: number;
  duration_ns: number;
  depth: number;
  frames: FrameRef[];
  frames_truncated: boolean;
}

export interface StacksResult extends AnalysisResult<EdgeItem | StackExample> {
  direction: StackDirection;
  frame: FrameRef;
  metric: FrameMetric | null;
}

const SQL = {
  callers: `SELECT parent_frame_id AS frame_id, sum(sample_count) AS sample_count, sum(duration_ns) AS duration_ns
            FROM call_edges WHERE child_frame_id = ? AND metric = ? GROUP BY parent_frame_id
            ORDER BY duration_ns DESC, sample_count DESC, frame_id LIMIT ? OFFSET ?`,
  callersTotal: `SELECT count(DISTINCT parent_frame_id) AS n FROM call_edges WHERE child_frame_id = ? AND metric = ?`,
  callees: `SELECT child_frame_id AS frame_id, sum(sample_count) AS sample_count, sum(duration_ns) AS duration_ns
            FROM call_edges WHERE parent_frame_id = ? AND metric = ? GROUP BY child_frame_id
            ORDER BY duration_ns DESC, sample_count DESC, frame_id LIMIT ? OFFSET ?`,
  calleesTotal: `SELECT count(DISTINCT child_frame_id) AS n FROM call_edges WHERE parent_frame_id = ? AND metric = ?`,
  examples: `SELECT stack_id, frame_ids, sum(sample_count) AS sample_count, sum(duration_ns) AS duration_ns
             FROM stacks WHERE list_contains(frame_ids, ?) AND metric = ? GROUP BY stack_id, frame_ids
             ORDER BY duration_ns DESC, sample_count DESC, stack_id LIMIT ? OFFSET ?`,
  examplesTotal: `SELECT count(DISTINCT stack_id) AS n FROM stacks WHERE list_contains(frame_ids, ?) AND metric = ?`,
  metrics: `SELECT DISTINCT metric FROM call_edges ORDER BY metric`,
} as const;

export interface StacksOptions {
  frameId: string;
  limit: number;
  cursor?: string | null;
  metric?: FrameMetric;
}

export async function analyzeStacks(
  engine: SnapshotEngine,
  snapshot: SnapshotHandle,
  subject: Subject,
  direction: StackDirection,
  options: StacksOptions,
): Promise<StacksResult> {
  const generations = subject.generations.filter((g) => g.tables.call_edges !== undefined);
  const binding = { query: `stacks.${direction}@${STACKS_VERSION}`, filters: { subject: subject.id, frame: options.frameId, metric: options.metric ?? null }, commitId: snapshot.commitId };
  const offset = decodeCursor(options.cursor, binding);
  const frames = await readFrames(snapshot, generations);
  const frameInfo = frames.get(options.frameId);
  const base = { ...resultBase({ name: `stack_${direction}`, version: STACKS_VERSION, claimLevel: "derived" }, snapshot, subject, generations), direction };
  const ref = (id: string): FrameRef => {
    const f = frames.get(id);
    return { frame_id: id, function: f?.function ?? "(unknown frame)", file: f?.file ?? null, line: f?.line ?? null };
  };
  if (generations.length === 0) {
    return {
      ...base,
      frame: ref(options.frameId),
      metric: null,
      evidence: { status: "unavailable", reason: "no_profile_artifact: no call-stack evidence for this subject in the pinned commit", next_tool: "import_artifact" },
      items: [], total: 0, returned: 0, truncated: false, next_cursor: null,
    };
  }
  if (!frameInfo) {
    throw new FlameoxError("FRAME_NOT_FOUND", `Cannot find frame ${options.frameId} in the evidence of ${subject.id}`, {
      remediation: ["Take frame ids from `flameox analyze hotspots`"],
      details: { field: "frame_id" },
    });
  }
  const table = direction === "examples" ? "stacks" : "call_edges";
  await engine.ensureTable(table, generations);
  const metrics = direction === "examples"
    ? (await engine.ensureTable("call_edges", generations), engine.query("stacks.metrics", SQL.metrics, []))
    : engine.query("stacks.metrics", SQL.metrics, []);
  const available = metrics.map((m) => m.metric as FrameMetric);
  const metric = options.metric ?? defaultFrameMetric(available) ?? "wall_time";
  const totalSql = direction === "callers" ? SQL.callersTotal : direction === "callees" ? SQL.calleesTotal : SQL.examplesTotal;
  const total = Number(engine.query(`stacks.${direction}.total`, totalSql, [options.frameId, metric])[0]?.n ?? 0);
  const rows = engine.query(`stacks.${direction}`, SQL[direction], [options.frameId, metric, options.limit, offset]);
  const items: (EdgeItem | StackExample)[] = rows.map((row) => {
    if (direction !== "examples") {
      return { ...ref(row.frame_id as string), sample_count: Number(row.sample_count), duration_ns: Number(row.duration_ns) };
    }
    const ids = row.frame_ids as string[];
    return {
      stack_id: row.stack_id as string,
      sample_count: Number(row.sample_count),
      duration_ns: Number(row.duration_ns),
      depth: ids.length,
      // Keep the leaf end of very deep stacks: that is where the frame's cost is.
      frames: ids.slice(-MAX_PATH_FRAMES).map(ref),
      frames_truncated: ids.length > MAX_PATH_FRAMES,
    };
  });
  const end = offset + items.length;
  return {
    ...base,
    frame: ref(options.frameId),
    metric,
    evidence:
      total === 0
        ? { status: "empty", reason: `no ${direction} of this frame were observed for ${metric}; this is not proof that none exist` }
        : { status: "available", reason: `${total} ${direction} for ${metric}` },
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}
