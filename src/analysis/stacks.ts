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
import { frameGroupKey } from "./pictures/frame-identity.ts";
import type { Granularity } from "../domain/granularity.ts";
import { PartCache } from "./evidence-parts.ts";
import {
  CALL_EDGE_COLUMNS,
  edgeMetrics,
  edgeNeighbours,
  STACK_COLUMNS,
  stackExamples,
} from "./stack-reader.ts";
import type { Subject } from "./subject.ts";

export type StackDirection = "callers" | "callees" | "examples";
/** 2: per function by default, as hotspots (1: per stored frame, today's `line`). */
export const STACKS_VERSION = "2";
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
  granularity: Granularity;
  /**
   * Stored frames the drill-down covers: the frame's function's lines at `function` granularity,
   * the frame alone at `line`.
   */
  frames: number;
}

export interface StacksOptions {
  frameId: string;
  limit: number;
  cursor?: string | null;
  metric?: FrameMetric;
  granularity?: Granularity;
}

export async function analyzeStacks(
  snapshot: SnapshotHandle,
  subject: Subject,
  direction: StackDirection,
  options: StacksOptions,
  parts: PartCache = new PartCache(0),
): Promise<StacksResult> {
  const generations = subject.generations.filter((g) => g.tables.call_edges !== undefined);
  const granularity = options.granularity ?? "function";
  const binding = {
    query: `stacks.${direction}@${STACKS_VERSION}`,
    filters: {
      subject: subject.id,
      frame: options.frameId,
      metric: options.metric ?? null,
      granularity,
    },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const frames = await readFrames(snapshot, generations, parts);
  const frameInfo = frames.get(options.frameId);
  const base = {
    ...resultBase(
      { name: `stack_${direction}`, version: STACKS_VERSION, claimLevel: "derived" },
      snapshot,
      subject,
      generations,
    ),
    direction,
    granularity,
  };
  // Frames by the row they belong to, so a function's lines drill down together.
  const groupOf = (id: string) => frameGroupKey(id, frames.get(id), granularity);
  const members = new Map<string, string[]>();
  for (const id of frames.keys()) {
    const key = groupOf(id);
    const list = members.get(key);
    if (list) list.push(id);
    else members.set(key, [id]);
  }
  const ref = (id: string): FrameRef => {
    const f = frames.get(id);
    // A function over several lines has no one line.
    const many = (members.get(groupOf(id))?.length ?? 1) > 1 && granularity !== "line";
    return {
      frame_id: id,
      function: f?.function ?? "(unknown frame)",
      file: f?.file ?? null,
      line: many ? null : (f?.line ?? null),
    };
  };
  // A frame on a stack example is one stored frame: its own line.
  const stackRef = (id: string): FrameRef => {
    const f = frames.get(id);
    return {
      frame_id: id,
      function: f?.function ?? "(unknown frame)",
      file: f?.file ?? null,
      line: f?.line ?? null,
    };
  };
  const frameIds = members.get(groupOf(options.frameId)) ?? [options.frameId];
  if (generations.length === 0) {
    return {
      ...base,
      frame: ref(options.frameId),
      metric: null,
      frames: 1,
      evidence: {
        status: "unavailable",
        reason: "no_profile_artifact: no call-stack evidence for this subject in the pinned commit",
        next_tool: "import_artifact",
      },
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  if (!frameInfo) {
    throw new FlameoxError(
      "FRAME_NOT_FOUND",
      `Cannot find frame ${options.frameId} in the evidence of ${subject.id}`,
      {
        remediation: ["Take frame ids from `flameox analyze hotspots`"],
        details: { field: "frame_id" },
      },
    );
  }
  const edges = await parts.partsOf(snapshot, "call_edges", generations, CALL_EDGE_COLUMNS);
  const available = edgeMetrics(edges) as FrameMetric[];
  const metric = options.metric ?? defaultFrameMetric(available) ?? "wall_time";
  let total: number;
  let items: (EdgeItem | StackExample)[];
  if (direction === "examples") {
    const stacks = await parts.partsOf(snapshot, "stacks", generations, STACK_COLUMNS);
    const ranked = stackExamples(stacks, frameIds, metric, options.limit, offset);
    total = ranked.total;
    items = ranked.page.map((s) => ({
      stack_id: s.id,
      sample_count: s.sample_count,
      duration_ns: s.duration_ns,
      depth: s.frame_ids.length,
      // Keep the leaf end of very deep stacks: that is where the frame's cost is.
      frames: s.frame_ids.slice(-MAX_PATH_FRAMES).map((id) => stackRef(id)),
      frames_truncated: s.frame_ids.length > MAX_PATH_FRAMES,
    }));
  } else {
    const ranked = edgeNeighbours(
      edges,
      direction,
      frameIds,
      metric,
      options.limit,
      offset,
      groupOf,
    );
    total = ranked.total;
    items = ranked.page.map((e) => ({
      ...ref(e.id),
      sample_count: e.sample_count,
      duration_ns: e.duration_ns,
    }));
  }
  const end = offset + items.length;
  return {
    ...base,
    frame: ref(options.frameId),
    metric,
    frames: frameIds.length,
    evidence:
      total === 0
        ? {
            status: "empty",
            reason:
              `no ${direction} of this frame were observed for ${metric}; this is not proof ` +
              `that none exist`,
          }
        : { status: "available", reason: `${total} ${direction} for ${metric}` },
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}
