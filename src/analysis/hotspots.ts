/**
 * Hotspots recipe: top functions by self value from the per-artifact `frame_measurements`
 * derived table joined with `frames`, summed over threads. Sampled CPU time is preferred
 * when the evidence has it; otherwise trace-slice wall time is used, and the result says
 * which. No profile evidence is `unavailable`, which is different from zero hotspots.
 *
 * Rows are functions by default, as `pprof -top` shows them: a profiler that records the
 * sampled line (pprof, perf) stores one frame per line, and a function would otherwise be
 * spread over many rows. `line` keeps one row per stored frame; `file` one per file. A
 * function's self value is the sum of its frames'; its inclusive value counts every stack
 * that passes through it once, however many of its lines that stack holds, so it is read
 * from the stacks, not summed over frames (that would count recursion and calls between
 * lines of one function twice).
 */
import { defaultFrameMetric, type FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import { type AnalysisResult, resultBase } from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { HOTSPOTS_RECIPE, HOTSPOTS_VERSION } from "./hotspots-recipe.ts";
import { PartCache, type DecodedPart } from "./evidence-parts.ts";
import { plainColumn, readEvidenceColumns } from "./evidence-reader.ts";
import { frameGroupKey, type Granularity } from "./pictures/frame-identity.ts";
import { readStackSet } from "./profile-stacks.ts";
import type { Subject } from "./subject.ts";

/**
 * Frames a runtime adds for time outside the program's own code (V8's idle, program and
 * garbage-collector entries, its root): `exclude_pseudo_frames` leaves them out.
 */
const PSEUDO_FRAMES = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);

export interface Hotspot {
  rank: number;
  /**
   * The row's frame (for drill-downs): its only frame, or, for a function or file over several, the
   * one with the most self value.
   */
  frame_id: string;
  /** Stored frames the row sums (several lines of one function, several functions of one file). */
  frames: number;
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
  coverage: {
    total_self_value: number;
    total_samples: number;
    frames: number;
    symbolized_fraction: number | null;
  };
  granularity: Granularity;
  /** What `exclude_pseudo_frames` left out (null: nothing was asked to be left out). */
  excluded: { functions: string[]; self_value: number; self_fraction: number } | null;
}

export interface HotspotsOptions {
  limit: number;
  cursor?: string | null;
  metric?: FrameMetric;
  granularity?: Granularity;
  excludePseudoFrames?: boolean;
}

interface Totals {
  self: number;
  incl: number;
  selfN: number;
  inclN: number;
  unit: string;
}

interface Row extends Totals {
  key: string;
  frameIds: string[];
  /** The frame with the most self value. */
  lead: string;
}

export async function analyzeHotspots(
  snapshot: SnapshotHandle,
  subject: Subject,
  options: HotspotsOptions,
  parts: PartCache = new PartCache(0),
): Promise<HotspotsResult> {
  const generations = subject.generations.filter((g) => g.tables.frame_measurements !== undefined);
  const granularity = options.granularity ?? "function";
  const excludePseudo = options.excludePseudoFrames ?? false;
  const binding = {
    query: `${HOTSPOTS_RECIPE}@${HOTSPOTS_VERSION}`,
    filters: {
      subject: subject.id,
      metric: options.metric ?? null,
      granularity,
      exclude_pseudo_frames: excludePseudo,
    },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const base = resultBase(
    { name: HOTSPOTS_RECIPE, version: HOTSPOTS_VERSION, claimLevel: "derived" },
    snapshot,
    subject,
    generations,
  );
  const limitations = base.limitations;
  if (generations.length === 0) {
    return {
      ...base,
      evidence: {
        status: "unavailable",
        reason:
          "no_profile_artifact: no extracted profile or trace evidence for this subject in " +
          "the pinned commit",
        next_tool: "import_artifact",
      },
      metric: null,
      metrics_available: [],
      coverage: { total_self_value: 0, total_samples: 0, frames: 0, symbolized_fraction: null },
      granularity,
      excluded: excludePseudo ? { functions: [], self_value: 0, self_fraction: 0 } : null,
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  const fm = await readEvidenceColumns(
    snapshot,
    "frame_measurements",
    generations,
    [
      "frame_id",
      "metric",
      "unit",
      "self_value",
      "inclusive_value",
      "self_samples",
      "inclusive_samples",
    ],
    parts,
  );
  const metricsAvailable = [...new Set(fm.columns.metric as string[])].sort() as FrameMetric[];
  const metric = options.metric ?? defaultFrameMetric(metricsAvailable);
  const totals = new Map<string, Totals>();
  for (let i = 0; i < fm.rows; i++) {
    if (fm.columns.metric![i] !== metric) continue;
    const id = fm.columns.frame_id![i] as string;
    const t = totals.get(id) ?? {
      self: 0,
      incl: 0,
      selfN: 0,
      inclN: 0,
      unit: fm.columns.unit![i] as string,
    };
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
  const grouped = await groupRows(totals, frames, granularity, async () => {
    const set = await readStackSet(snapshot, subject);
    return metric ? [...(set.byMetric.get(metric)?.values() ?? [])] : [];
  });
  const pseudo = excludePseudo
    ? grouped.filter((r) => PSEUDO_FRAMES.has(frames.get(r.lead)?.function ?? ""))
    : [];
  const shown = pseudo.length > 0 ? grouped.filter((r) => !pseudo.includes(r)) : grouped;
  const ranked = shown.sort(
    (a, b) => b.self - a.self || b.incl - a.incl || (a.key < b.key ? -1 : 1),
  );
  const page = ranked.slice(offset, offset + options.limit);
  const items: Hotspot[] = page.map((r, i) => {
    const f = frames.get(r.lead);
    // A row over several lines (or functions) has no one line; a file row no one function.
    const lines = new Set(r.frameIds.map((id) => frames.get(id)?.line ?? null));
    return {
      rank: offset + i + 1,
      frame_id: r.lead,
      frames: r.frameIds.length,
      function:
        granularity === "file" && r.frameIds.length > 1
          ? `(${r.frameIds.length} functions)`
          : (f?.function ?? "(unknown frame)"),
      language: f?.language ?? "unknown",
      module: f?.module ?? null,
      file: f?.file ?? null,
      line: lines.size === 1 ? (f?.line ?? null) : null,
      column: r.frameIds.length === 1 ? (f?.column ?? null) : null,
      symbolization: f?.symbolization ?? "absent",
      self_value: r.self,
      inclusive_value: r.incl,
      self_fraction: totalSelf > 0 ? r.self / totalSelf : 0,
      inclusive_fraction: totalSelf > 0 ? Math.min(1, r.incl / totalSelf) : 0,
      self_samples: r.selfN,
      inclusive_samples: r.inclN,
      unit: r.unit,
    };
  });
  const excludedSelf = pseudo.reduce((n, r) => n + r.self, 0);
  const end = offset + items.length;
  return {
    ...base,
    evidence:
      totals.size === 0
        ? {
            status: "empty",
            reason:
              "the profile evidence holds no samples or slices; zero hotspots were observed, " +
              "which is not proof of absence",
          }
        : limitations.length > 0
          ? {
              status: "partial",
              reason: `available with ${limitations.length} limitation(s); see limitations`,
            }
          : { status: "available", reason: `${metric} measurements of ${totals.size} frames` },
    metric,
    metrics_available: metricsAvailable,
    coverage: {
      total_self_value: totalSelf,
      total_samples: totalSamples,
      frames: totals.size,
      symbolized_fraction: totals.size > 0 ? symbolized / totals.size : null,
    },
    granularity,
    excluded: excludePseudo
      ? {
          functions: pseudo.map((r) => frames.get(r.lead)?.function ?? r.key).sort(),
          self_value: excludedSelf,
          self_fraction: totalSelf > 0 ? excludedSelf / totalSelf : 0,
        }
      : null,
    items,
    total: ranked.length,
    returned: items.length,
    truncated: end < ranked.length,
    next_cursor: end < ranked.length ? encodeCursor(binding, end) : null,
  };
}

/**
 * Frames grouped at the granularity: self values and sample counts summed; the inclusive
 * value of a group of several frames counted over the stacks (each stack once), read only
 * when some group has several frames.
 */
async function groupRows(
  totals: ReadonlyMap<string, Totals>,
  frames: ReadonlyMap<string, FrameInfo>,
  granularity: Granularity,
  stacks: () => Promise<{ frameIds: string[]; value: number; samples: number }[]>,
): Promise<Row[]> {
  const groups = new Map<string, Row>();
  for (const [id, t] of totals) {
    const key = frameGroupKey(id, frames.get(id), granularity);
    const row = groups.get(key);
    if (!row) {
      groups.set(key, { key, frameIds: [id], lead: id, ...t });
      continue;
    }
    // The lead does not depend on the order frames were read in (parts may come from a cache).
    const leadSelf = totals.get(row.lead)!.self;
    if (t.self > leadSelf || (t.self === leadSelf && id < row.lead)) row.lead = id;
    row.frameIds.push(id);
    row.self += t.self;
    row.selfN += t.selfN;
  }
  const merged = [...groups.values()].filter((r) => r.frameIds.length > 1);
  if (merged.length > 0) {
    const keyOf = new Map<string, string>();
    for (const r of merged) for (const id of r.frameIds) keyOf.set(id, r.key);
    const sums = new Map<string, { value: number; samples: number }>(
      merged.map((r) => [r.key, { value: 0, samples: 0 }]),
    );
    const seen = new Set<string>();
    for (const stack of await stacks()) {
      seen.clear();
      for (const id of stack.frameIds) {
        const key = keyOf.get(id);
        if (key === undefined || seen.has(key)) continue;
        seen.add(key);
        const sum = sums.get(key)!;
        sum.value += stack.value;
        sum.samples += stack.samples;
      }
    }
    for (const r of merged) {
      const sum = sums.get(r.key)!;
      // Without stacks (call-arc formats such as callgrind) the largest frame's inclusive value is
      // the bound that is sure.
      r.incl =
        sum.value > 0 || sum.samples > 0
          ? sum.value
          : Math.max(...r.frameIds.map((id) => totals.get(id)!.incl));
      r.inclN =
        sum.value > 0 || sum.samples > 0
          ? sum.samples
          : Math.max(...r.frameIds.map((id) => totals.get(id)!.inclN));
    }
  }
  return [...groups.values()];
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
export async function readFrames(
  snapshot: SnapshotHandle,
  generations: Parameters<SnapshotHandle["tableFiles"]>[1],
  parts: PartCache = new PartCache(0),
): Promise<ReadonlyMap<string, FrameInfo>> {
  const decoded = await parts.partsOf(snapshot, "frames", generations, FRAME_COLUMNS);
  const maps = decoded.map((part) => part.derive("frames:by-id", () => framesOf(part)));
  if (maps.length === 1) return maps[0]!;
  const merged = new Map<string, FrameInfo>();
  for (const map of maps) for (const [id, info] of map) merged.set(id, info);
  return merged;
}

const FRAME_COLUMNS = [
  "frame_id",
  "function",
  "language",
  "module",
  "file",
  "line",
  "column",
  "symbolization",
];

function framesOf(part: DecodedPart): { value: Map<string, FrameInfo>; bytes: number } {
  const [ids, fns, languages, modules, files, lines, columns, symbolization] = FRAME_COLUMNS.map(
    (c) => plainColumn(part, c),
  );
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
