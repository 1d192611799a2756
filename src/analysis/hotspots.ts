/**
 * Hotspots recipe: top frames by self value from the per-artifact `frame_measurements`
 * derived table joined with `frames`, summed over threads. Sampled CPU time is preferred
 * when the evidence has it; otherwise trace-slice wall time is used, and the result says
 * which. No profile evidence is `unavailable`, which is different from zero hotspots.
 */
import { defaultFrameMetric, type FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { PartCache, type DecodedPart } from "./evidence-parts.ts";
import { plainColumn, readEvidenceColumns } from "./evidence-reader.ts";
import type { Subject } from "./subject.ts";

export const HOTSPOTS_RECIPE = "cpu_hotspots";
export const HOTSPOTS_VERSION = "1";

export interface Hotspot {
  rank: number;
  frame_id: string;
  function: string;
  language: string;
  module: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
  symbolization: string;
  self_value: number;
  inclusive_value: number;
  self_fraction: number;
  inclusive_fraction: number;
  self_samples: number;
  inclusive_samples: number;
  unit: string;
}

export interface HotspotsResult extends AnalysisResult<Hotspot> {
  metric: FrameMetric | null;
  metrics_available: FrameMetric[];
  coverage: { total_self_value: number; total_samples: number; frames: number; symbolized_fraction: number | null };
}

export interface HotspotsOptions {
  limit: number;
  cursor?: string | null;
  metric?: FrameMetric;
}

export async function analyzeHotspots(snapshot: SnapshotHandle, subject: Subject, options: HotspotsOptions, parts: PartCache = new PartCache(0)): Promise<HotspotsResult> {
  const generations = subject.generations.filter((g) => g.tables.frame_measurements !== undefined);
  const binding = { query: `${HOTSPOTS_RECIPE}@${HOTSPOTS_VERSION}`, filters: { subject: subject.id, metric: options.metric ?? null }, commitId: snapshot.commitId };
  const offset = decodeCursor(options.cursor, binding);
  const base = resultBase({ name: HOTSPOTS_RECIPE, version: HOTSPOTS_VERSION, claimLevel: "derived" }, snapshot, subject, generations);
  const limitations = base.limitations;
  if (generations.length === 0) {
    return {
      ...base,
      evidence: {
        status: "unavailable",
        reason: "no_profile_artifact: no extracted profile or trace evidence for this subject in the pinned commit",
        next_tool: "import_artifact",
      },
      metric: null,
      metrics_available: [],
      coverage: { total_self_value: 0, total_samples: 0, frames: 0, symbolized_fraction: null },
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  const fm = await readEvidenceColumns(snapshot, "frame_measurements", generations, [
    "frame_id", "metric", "unit", "self_value", "inclusive_value", "self_samples", "inclusive_samples",
  ], parts);
  const metricsAvailable = [...new Set(fm.columns.metric as string[])].sort() as FrameMetric[];
  const metric = options.metric ?? defaultFrameMetric(metricsAvailable);
  const totals = new Map<string, { self: number; incl: number; selfN: number; inclN: number; unit: string }>();
  for (let i = 0; i < fm.rows; i++) {
    if (fm.columns.metric![i] !== metric) continue;
    const id = fm.columns.frame_id![i] as string;
    const t = totals.get(id) ?? { self: 0, incl: 0, selfN: 0, inclN: 0, unit: fm.columns.unit![i] as string };
    t.self += fm.columns.self_value![i] as number;
    t.incl += fm.columns.inclusive_value![i] as number;
    t.selfN += fm.columns.self_samples![i] as number;
    t.inclN += fm.columns.inclusive_samples![i] as number;
    totals.set(id, t);
  }
  const frames = await readFrames(snapshot, generations, parts);
  let totalSelf = 0;
  let totalSamples = 0;
  let symbolized = 0;
  for (const [id, t] of totals) {
    totalSelf += t.self;
    totalSamples += t.selfN;
    if (frames.get(id)?.symbolization === "complete") symbolized += 1;
  }
  const ranked = [...totals.entries()].sort((a, b) => b[1].self - a[1].self || b[1].incl - a[1].incl || (a[0] < b[0] ? -1 : 1));
  const page = ranked.slice(offset, offset + options.limit);
  const items: Hotspot[] = page.map(([id, t], i) => {
    const f = frames.get(id);
    return {
      rank: offset + i + 1,
      frame_id: id,
      function: f?.function ?? "(unknown frame)",
      language: f?.language ?? "unknown",
      module: f?.module ?? null,
      file: f?.file ?? null,
      line: f?.line ?? null,
      column: f?.column ?? null,
      symbolization: f?.symbolization ?? "absent",
      self_value: t.self,
      inclusive_value: t.incl,
      self_fraction: totalSelf > 0 ? t.self / totalSelf : 0,
      inclusive_fraction: totalSelf > 0 ? Math.min(1, t.incl / totalSelf) : 0,
      self_samples: t.selfN,
      inclusive_samples: t.inclN,
      unit: t.unit,
    };
  });
  const end = offset + items.length;
  return {
    ...base,
    evidence:
      totals.size === 0
        ? { status: "empty", reason: "the profile evidence holds no samples or slices; zero hotspots were observed, which is not proof of absence" }
        : limitations.length > 0
          ? { status: "partial", reason: `available with ${limitations.length} limitation(s); see limitations` }
          : { status: "available", reason: `${metric} measurements of ${totals.size} frames` },
    metric,
    metrics_available: metricsAvailable,
    coverage: { total_self_value: totalSelf, total_samples: totalSamples, frames: totals.size, symbolized_fraction: totals.size > 0 ? symbolized / totals.size : null },
    items,
    total: ranked.length,
    returned: items.length,
    truncated: end < ranked.length,
    next_cursor: end < ranked.length ? encodeCursor(binding, end) : null,
  };
}

export interface FrameInfo {
  function: string;
  language: string;
  module: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
  symbolization: string;
}

/**
 * Frames of the given generations by id; a later generation's row for an id wins. Each
 * part's map is built once and kept with the part.
 */
export async function readFrames(snapshot: SnapshotHandle, generations: Parameters<SnapshotHandle["tableFiles"]>[1], parts: PartCache = new PartCache(0)): Promise<ReadonlyMap<string, FrameInfo>> {
  const decoded = await parts.partsOf(snapshot, "frames", generations, FRAME_COLUMNS);
  const maps = decoded.map((part) => part.derive("frames:by-id", () => framesOf(part)));
  if (maps.length === 1) return maps[0]!;
  const merged = new Map<string, FrameInfo>();
  for (const map of maps) for (const [id, info] of map) merged.set(id, info);
  return merged;
}

const FRAME_COLUMNS = ["frame_id", "function", "language", "module", "file", "line", "column", "symbolization"];

function framesOf(part: DecodedPart): { value: Map<string, FrameInfo>; bytes: number } {
  const [ids, fns, languages, modules, files, lines, columns, symbolization] = FRAME_COLUMNS.map((c) => plainColumn(part, c));
  const frames = new Map<string, FrameInfo>();
  for (let i = 0; i < part.rows; i++) {
    frames.set(ids![i] as string, {
      function: fns![i] as string,
      language: languages![i] as string,
      module: modules![i] as string | null,
      file: files![i] as string | null,
      line: lines![i] as number | null,
      column: columns![i] as number | null,
      symbolization: symbolization![i] as string,
    });
  }
  return { value: frames, bytes: 96 * part.rows };
}
