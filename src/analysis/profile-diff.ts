/**
 * Differential profile of any two subjects, whatever their formats: per function, the
 * self and total (inclusive) cost in the base and in the candidate, and how they moved,
 * absolute and as points of each profile's total (pprof's -diff_base, with -normalize as
 * an option). Functions match by name and file; a function whose file differs or is
 * missing on one side matches by name alone when that name is unique among the
 * unmatched functions of both sides, and the row says which rule matched it.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { EvidenceStatus, Limitation } from "../domain/evidence-status.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import {
  ANALYSIS_SCHEMA_VERSION,
  type AnalysisInputs,
  inputsOf,
  distinctLimitations,
  type PageInfo,
} from "./analysis-result.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { frameLabel } from "./pictures/frame-identity.ts";
import {
  defaultMetric,
  metricsOf,
  type ProfileStacks,
  selectView,
  type StackSet,
  readStackSet,
} from "./profile-stacks.ts";
import type { Subject } from "./subject.ts";

export const DIFF_RECIPE = "profile_diff";
export const DIFF_VERSION = "1";

export type DiffSort = "self" | "total";

export interface FunctionCost {
  self: number;
  total: number;
}

export interface DiffItem {
  rank: number;
  function: string;
  file: string | null;
  language: string;
  /**
   * `name_file`: same name and file; `name_only`: the stated fallback; `unmatched`: one side only.
   */
  match: "name_file" | "name_only" | "unmatched";
  base: FunctionCost;
  candidate: FunctionCost;
  /** candidate − base (base scaled to the candidate's total when normalized). */
  delta_self: number;
  delta_total: number;
  /** Share of each profile's own total, candidate minus base, in points (0.05 = 5 points). */
  delta_self_share: number;
  delta_total_share: number;
}

export interface ProfileDiffResult extends PageInfo {
  schema_version: number;
  recipe: string;
  recipe_version: string;
  corpus_commit_id: string;
  claim_level: "derived";
  base: AnalysisInputs;
  candidate: AnalysisInputs;
  metric: FrameMetric | null;
  unit: string;
  sort: DiffSort;
  normalized: boolean;
  totals: { base: number; candidate: number; delta: number; ratio: number | null };
  evidence: EvidenceStatus;
  limitations: Limitation[];
  items: DiffItem[];
}

export interface DiffOptions {
  metric?: FrameMetric;
  sort?: DiffSort;
  normalize?: boolean;
  limit: number;
  cursor?: string | null;
}

interface FunctionRow {
  function: string;
  file: string | null;
  language: string;
  self: number;
  total: number;
}

/** Self and total cost per function (name + file) of one profile view. */
export function functionCosts(view: ProfileStacks): Map<string, FunctionRow> {
  const rows = new Map<string, FunctionRow>();
  const keyOf = new Map<string, string>();
  const key = (id: string) => {
    let k = keyOf.get(id);
    if (k === undefined) {
      k = frameLabel(id, view.frames.get(id), "function").key;
      keyOf.set(id, k);
      if (!rows.has(k)) {
        const f = view.frames.get(id);
        rows.set(k, {
          function: f?.function || "(anonymous)",
          file: f?.file ?? f?.module ?? null,
          language: f?.language ?? "unknown",
          self: 0,
          total: 0,
        });
      }
    }
    return k;
  };
  for (const stack of view.stacks) {
    const seen = new Set<string>();
    for (const id of stack.frameIds) {
      const k = key(id);
      // Recursion counts a function once per stack toward its total, as hotspots do.
      if (!seen.has(k)) {
        seen.add(k);
        rows.get(k)!.total += stack.value;
      }
    }
    const leaf = stack.frameIds[stack.frameIds.length - 1];
    if (leaf !== undefined) rows.get(key(leaf))!.self += stack.value;
  }
  return rows;
}

interface Pair {
  base?: FunctionRow;
  candidate?: FunctionRow;
  match: DiffItem["match"];
}

export function matchFunctions(
  base: Map<string, FunctionRow>,
  candidate: Map<string, FunctionRow>,
): Pair[] {
  const pairs: Pair[] = [];
  const baseLeft = new Map(base);
  const candLeft = new Map<string, FunctionRow>();
  for (const [k, c] of candidate) {
    const b = baseLeft.get(k);
    if (b) {
      pairs.push({ base: b, candidate: c, match: "name_file" });
      baseLeft.delete(k);
    } else candLeft.set(k, c);
  }
  const byName = (rows: Map<string, FunctionRow>) => {
    const names = new Map<string, FunctionRow[]>();
    for (const r of rows.values()) names.set(r.function, [...(names.get(r.function) ?? []), r]);
    return names;
  };
  const baseNames = byName(baseLeft);
  const candNames = byName(candLeft);
  for (const [name, cands] of candNames) {
    const bases = baseNames.get(name);
    if (cands.length === 1 && bases?.length === 1) {
      pairs.push({ base: bases[0], candidate: cands[0], match: "name_only" });
      baseNames.delete(name);
    } else for (const c of cands) pairs.push({ candidate: c, match: "unmatched" });
  }
  for (const bases of baseNames.values())
    for (const b of bases) pairs.push({ base: b, match: "unmatched" });
  return pairs;
}

export async function diffProfiles(
  snapshot: SnapshotHandle,
  base: Subject,
  candidate: Subject,
  options: DiffOptions,
): Promise<ProfileDiffResult> {
  if (base.id === candidate.id) {
    throw new FlameoxError(
      "COMPARISON_INVALID",
      `Cannot diff ${base.id} with itself; give two different runs or artifacts`,
      { details: { field: "candidate" } },
    );
  }
  const sort = options.sort ?? "self";
  const normalize = options.normalize ?? false;
  const [baseSet, candSet] = [
    await readStackSet(snapshot, base),
    await readStackSet(snapshot, candidate),
  ];
  const metric = options.metric ?? commonMetric(baseSet, candSet);
  const baseView = await selectView(snapshot, baseSet, metric);
  const candView = await selectView(snapshot, candSet, baseView.metric);
  const binding = {
    query: `${DIFF_RECIPE}@${DIFF_VERSION}`,
    filters: { base: base.id, candidate: candidate.id, metric: baseView.metric, sort, normalize },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const limitations = distinctLimitations(
    [...baseView.generations, ...candView.generations].map((g) => snapshot.manifest(g).limitations),
  );
  const head = {
    schema_version: ANALYSIS_SCHEMA_VERSION,
    recipe: DIFF_RECIPE,
    recipe_version: DIFF_VERSION,
    corpus_commit_id: snapshot.commitId,
    claim_level: "derived" as const,
    base: inputsOf(
      base,
      baseView.generations.map((g) => g.generation_id),
    ),
    candidate: inputsOf(
      candidate,
      candView.generations.map((g) => g.generation_id),
    ),
    metric: baseView.metric,
    unit: baseView.unit,
    sort,
    normalized: normalize,
    limitations,
  };
  const missing = [baseView, candView].findIndex((v) => v.stacks.length === 0);
  if (missing >= 0 || baseView.unit !== candView.unit) {
    const which = missing === 0 ? base.id : candidate.id;
    const reason =
      missing >= 0
        ? `no_profile_stacks: ${which} has no ` +
          (baseView.metric ?? "profile") +
          ` stacks in the pinned commit (metrics there: ` +
          ((missing === 0 ? baseView : candView).metricsAvailable.join(", ") || "none") +
          `)`
        : `unit_mismatch: ${baseView.unit} vs ${candView.unit}`;
    return {
      ...head,
      totals: {
        base: baseView.totalValue,
        candidate: candView.totalValue,
        delta: candView.totalValue - baseView.totalValue,
        ratio: null,
      },
      evidence: { status: "unavailable", reason },
      items: [],
      total: 0,
      returned: 0,
      truncated: false,
      next_cursor: null,
    };
  }
  const bt = baseView.totalValue;
  const ct = candView.totalValue;
  const scale = normalize && bt > 0 ? ct / bt : 1;
  const pairs = matchFunctions(functionCosts(baseView), functionCosts(candView));
  const rows: Omit<DiffItem, "rank">[] = pairs.map((p) => {
    const b = { self: p.base?.self ?? 0, total: p.base?.total ?? 0 };
    const c = { self: p.candidate?.self ?? 0, total: p.candidate?.total ?? 0 };
    const who = p.candidate ?? p.base!;
    return {
      function: who.function,
      file: who.file,
      language: who.language,
      match: p.match,
      base: b,
      candidate: c,
      delta_self: c.self - b.self * scale,
      delta_total: c.total - b.total * scale,
      delta_self_share: share(c.self, ct) - share(b.self, bt),
      delta_total_share: share(c.total, ct) - share(b.total, bt),
    };
  });
  const by =
    sort === "self"
      ? (r: (typeof rows)[number]) => Math.abs(r.delta_self)
      : (r: (typeof rows)[number]) => Math.abs(r.delta_total);
  rows.sort(
    (x, y) =>
      by(y) - by(x) ||
      Math.abs(y.delta_total) - Math.abs(x.delta_total) ||
      (x.function < y.function ? -1 : x.function > y.function ? 1 : 0),
  );
  const page = rows
    .slice(offset, offset + options.limit)
    .map((r, i) => ({ rank: offset + i + 1, ...r }));
  const end = offset + page.length;
  const nameOnly = pairs.filter((p) => p.match === "name_only").length;
  return {
    ...head,
    limitations:
      nameOnly > 0
        ? [
            ...limitations,
            {
              code: "functions_matched_by_name_only",
              message:
                `${nameOnly} function(s) matched by name alone (file differs or is missing on ` +
                `one side)`,
              count: nameOnly,
            },
          ]
        : limitations,
    totals: { base: bt, candidate: ct, delta: ct - bt, ratio: bt > 0 ? ct / bt : null },
    evidence: {
      status: "available",
      reason:
        `${baseView.metric} of ${pairs.length} functions: ${baseView.stacks.length} base ` +
        `and ${candView.stacks.length} candidate stacks`,
    },
    items: page,
    total: rows.length,
    returned: page.length,
    truncated: end < rows.length,
    next_cursor: end < rows.length ? encodeCursor(binding, end) : null,
  };
}

const share = (v: number, total: number) => (total > 0 ? v / total : 0);

/** Without --metric, the first metric of the hotspots order that both profiles have. */
function commonMetric(base: StackSet, candidate: StackSet): FrameMetric | null {
  const b = defaultMetric(base);
  if (b && candidate.byMetric.has(b)) return b;
  return metricsOf(base).find((m) => candidate.byMetric.has(m)) ?? b;
}
