/**
 * Drill-down from a frame: who calls it (callers), what it calls (callees), and
 * representative full stacks through it (examples). Read from the decoded `call_edges` and
 * `stacks` parts of the subject's generations only (see stack-reader.ts); frame names are
 * joined from the per-artifact `frames` table.
 */
import { FlameoxError } from "../domain/errors.ts";
import { defaultFrameMetric, type FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { readFrames } from "./hotspots.ts";
import { PartCache } from "./evidence-parts.ts";
import { CALL_EDGE_COLUMNS, edgeMetrics, edgeNeighbours, STACK_COLUMNS, stackExamples } from "./stack-reader.ts";
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

export interface StacksOptions {
  frameId: string;
  limit: number;
  cursor?: string | null;
  metric?: FrameMetric;
}

export async function analyzeStacks(
  snapshot: SnapshotHandle,
  subject: Subject,
  direction: StackDirection,
  options: StacksOptions,
  parts: PartCache = new PartCache(0),
): Promise<StacksResult> {
  const generations = subject.generations.filter((g) => g.tables.call_edges !== undefined);
  const binding = { query: `stacks.${direction}@${STACKS_VERSION}`, filters: { subject: subject.id, frame: options.frameId, metric: options.metric ?? null }, commitId: snapshot.commitId };
  const offset = decodeCursor(options.cursor, binding);
  const frames = await readFrames(snapshot, generations, parts);
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
  const edges = await parts.partsOf(snapshot, "call_edges", generations, CALL_EDGE_COLUMNS);
  const available = edgeMetrics(edges) as FrameMetric[];
  const metric = options.metric ?? defaultFrameMetric(available) ?? "wall_time";
  let total: number;
  let items: (EdgeItem | StackExample)[];
  if (direction === "examples") {
    const stacks = await parts.partsOf(snapshot, "stacks", generations, STACK_COLUMNS);
    const ranked = stackExamples(stacks, options.frameId, metric, options.limit, offset);
    total = ranked.total;
    items = ranked.page.map((s) => ({
      stack_id: s.id,
      sample_count: s.sample_count,
      duration_ns: s.duration_ns,
      depth: s.frame_ids.length,
      // Keep the leaf end of very deep stacks: that is where the frame's cost is.
      frames: s.frame_ids.slice(-MAX_PATH_FRAMES).map(ref),
      frames_truncated: s.frame_ids.length > MAX_PATH_FRAMES,
    }));
  } else {
    const ranked = edgeNeighbours(edges, direction, options.frameId, metric, options.limit, offset);
    total = ranked.total;
    items = ranked.page.map((e) => ({ ...ref(e.id), sample_count: e.sample_count, duration_ns: e.duration_ns }));
  }
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
