/**
 * `summarize BASE CANDIDATE --compare`: a bounded digest of what moved from one run to
 * another, for a reviewer. It computes nothing of its own: per frame metric both runs
 * have, the functions whose self and whose total cost moved most are the first rows of
 * the profile diff (`flameox diff … --sort self|total`), and per sampled measurement both
 * runs have (same name, scope and unit), the change is the paired comparison of the two
 * runs (`flameox analyze compare --baseline-run … --candidate-run …`), with its interval,
 * effect size and decision. Every section names the command whose --json gives the same
 * figures at the same commit.
 */
import type { ComparisonResult } from "../analysis/comparison/compare-run-sets.ts";
import type { HotspotsResult } from "../analysis/hotspots.ts";
import {
  measurementGenerations,
  readMeasurements,
} from "../analysis/measurements/read-measurements.ts";
import type { DiffSort, ProfileDiffResult } from "../analysis/profile-diff.ts";
import type { Polarity } from "../analysis/statistics/decision.ts";
import { resolveSubject, type Subject } from "../analysis/subject.ts";
import { FlameoxError } from "../domain/errors.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";
import { type ArtifactDigest, artifactsOfRun } from "./summarize-runs.ts";

export const COMPARISON_SUMMARY_LIMITS = {
  functions: { fallback: 5, max: 25 },
  measurements: { fallback: 10, max: 50 },
  metrics: 4,
} as const;
/** The practical threshold every measurement comparison of the digest uses (5%). */
export const SUMMARY_THRESHOLD = 0.05;
/** Units where less is better; any other measurement is compared without a direction. */
const LOWER_IS_BETTER = new Set(["ns", "s", "bytes"]);

export interface ComparisonSummaryOptions {
  functions?: number;
  measurements?: number;
}

export interface MovedFunction {
  rank: number;
  function: string;
  file: string | null;
  match: string;
  base_self: number;
  candidate_self: number;
  delta_self: number;
  base_total: number;
  candidate_total: number;
  delta_total: number;
}

export interface MetricMoves {
  metric: FrameMetric | null;
  unit: string;
  totals: ProfileDiffResult["totals"];
  by_self: MovedFunction[];
  by_total: MovedFunction[];
  sources: { self: string; total: string };
}

export interface MeasurementChange {
  name: string;
  scope: string;
  unit: string | null;
  polarity: Polarity;
  baseline_value: number | null;
  candidate_value: number | null;
  absolute_change: number | null;
  relative_change: number | null;
  effect_size: number | null;
  confidence_low: number | null;
  confidence_high: number | null;
  confidence_level: number;
  complete_pair_n: number;
  method: string;
  decision: string;
  validity: string;
  /**
   * Codes of the comparison's limitations and mismatches (one run per side pairs samples by
   * position: `within_run_pairing`).
   */
  caveats: string[];
  source: string;
}

export interface ComparisonSummary {
  schema_version: 1;
  summary: "comparison.summary";
  corpus_commit_id: string;
  bounds: { functions: number; measurements: number; metrics: number };
  base: { run_id: string; artifacts: ArtifactDigest[] };
  candidate: { run_id: string; artifacts: ArtifactDigest[] };
  profiles: MetricMoves[];
  /** Frame metrics only one of the runs has: nothing to diff. */
  metrics_unmatched: FrameMetric[];
  measurements: MeasurementChange[];
  /** Sampled measurements of both runs beyond the bound, and measurements only one run has. */
  measurements_not_shown: number;
  measurements_unmatched: number;
}

export interface ComparisonReaders {
  ws: Workspace;
  snapshot: SnapshotHandle;
  hotspots(snapshot: SnapshotHandle, subject: Subject, limit: number): Promise<HotspotsResult>;
  diff(request: {
    base: string;
    candidate: string;
    metric: FrameMetric;
    sort: DiffSort;
    limit: number;
  }): Promise<ProfileDiffResult>;
  compare(request: {
    baseline_run_id: string;
    candidate_run_id: string;
    metric: string;
    scope: string;
    polarity: Polarity;
    practical_threshold: number;
  }): Promise<ComparisonResult>;
}

const clamp = (value: number | undefined, { fallback, max }: { fallback: number; max: number }) =>
  value === undefined ? fallback : Math.max(1, Math.min(Math.floor(value), max));
/** A shell word for a source command: quoted when it holds anything but plain characters. */
const word = (text: string) =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;

export async function summarizeComparison(
  readers: ComparisonReaders,
  base: string,
  candidate: string,
  options: ComparisonSummaryOptions = {},
): Promise<ComparisonSummary> {
  const { ws, snapshot } = readers;
  for (const [field, id] of [
    ["base", base],
    ["candidate", candidate],
  ] as const) {
    if (!id.startsWith("run_"))
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected a run id (run_…) as the ${field} but found ${JSON.stringify(id.slice(0, 80))}`,
        { details: { field: "run_ids" } },
      );
    ws.runs.get(id);
  }
  if (base === candidate)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `The base and candidate are both ${base}; a comparison needs two different runs`,
      { details: { field: "run_ids" } },
    );
  const bounds = {
    functions: clamp(options.functions, COMPARISON_SUMMARY_LIMITS.functions),
    measurements: clamp(options.measurements, COMPARISON_SUMMARY_LIMITS.measurements),
    metrics: COMPARISON_SUMMARY_LIMITS.metrics,
  };

  const metricsOf = async (runId: string): Promise<FrameMetric[]> => {
    const subject = resolveSubject(ws, snapshot, runId);
    if (!subject.generations.some((g) => (g.tables.frame_measurements ?? 0) > 0)) return [];
    return (await readers.hotspots(snapshot, subject, 1)).metrics_available;
  };
  const [baseMetrics, candidateMetrics] = [await metricsOf(base), await metricsOf(candidate)];
  const shared = baseMetrics.filter((m) => candidateMetrics.includes(m));
  const profiles: MetricMoves[] = [];
  for (const metric of shared.slice(0, bounds.metrics)) {
    const ranked = async (sort: DiffSort) =>
      readers.diff({ base, candidate, metric, sort, limit: bounds.functions });
    const [bySelf, byTotal] = [await ranked("self"), await ranked("total")];
    const moved = (r: ProfileDiffResult): MovedFunction[] =>
      r.items.map((d) => ({
        rank: d.rank,
        function: d.function,
        file: d.file,
        match: d.match,
        base_self: d.base.self,
        candidate_self: d.candidate.self,
        delta_self: d.delta_self,
        base_total: d.base.total,
        candidate_total: d.candidate.total,
        delta_total: d.delta_total,
      }));
    const source = (sort: DiffSort) =>
      `flameox diff ${base} ${candidate} --metric ${metric} --sort ${sort} ` +
      `--limit ${bounds.functions} --json`;
    profiles.push({
      metric: bySelf.metric,
      unit: bySelf.unit,
      totals: bySelf.totals,
      by_self: moved(bySelf),
      by_total: moved(byTotal),
      sources: { self: source("self"), total: source("total") },
    });
  }

  // Sampled measurements that both runs have, by name, scope and unit: what a paired comparison can
  // take.
  const rows = await readMeasurements(
    snapshot,
    measurementGenerations(snapshot, { runIds: [base, candidate] }),
  );
  const keysOf = (runId: string) =>
    new Set(
      rows
        .filter((r) => r.run_id === runId && r.aggregation === "sample" && !r.is_warmup)
        .map((r) => JSON.stringify([r.name, r.scope, r.unit])),
    );
  const [baseKeys, candidateKeys] = [keysOf(base), keysOf(candidate)];
  const both = [...baseKeys].filter((k) => candidateKeys.has(k)).sort();
  const measurements: MeasurementChange[] = [];
  for (const key of both.slice(0, bounds.measurements)) {
    const [name, scope, unit] = JSON.parse(key) as [string, string, string];
    const polarity: Polarity = LOWER_IS_BETTER.has(unit) ? "lower_is_better" : "neutral";
    const r = await readers.compare({
      baseline_run_id: base,
      candidate_run_id: candidate,
      metric: name,
      scope,
      polarity,
      practical_threshold: SUMMARY_THRESHOLD,
    });
    measurements.push({
      name,
      scope,
      unit: r.unit,
      polarity,
      baseline_value: r.baseline_value,
      candidate_value: r.candidate_value,
      absolute_change: r.absolute_change,
      relative_change: r.relative_change,
      effect_size: r.effect_size,
      confidence_low: r.confidence_low,
      confidence_high: r.confidence_high,
      confidence_level: r.confidence_level,
      complete_pair_n: r.complete_pair_n,
      method: r.method,
      decision: r.decision,
      validity: r.validity,
      caveats: [...r.limitations.map((l) => l.code), ...r.mismatches.map((m) => m.code)],
      source:
        `flameox analyze compare --baseline-run ${base} --candidate-run ${candidate} ` +
        `--metric ${word(name)} --scope ${word(scope)} --polarity ${polarity} ` +
        `--threshold ${SUMMARY_THRESHOLD} --json`,
    });
  }
  return {
    schema_version: 1,
    summary: "comparison.summary",
    corpus_commit_id: snapshot.commitId,
    bounds,
    base: { run_id: base, artifacts: artifactsOfRun(ws, base) },
    candidate: { run_id: candidate, artifacts: artifactsOfRun(ws, candidate) },
    profiles,
    metrics_unmatched: [
      ...baseMetrics.filter((m) => !candidateMetrics.includes(m)),
      ...candidateMetrics.filter((m) => !baseMetrics.includes(m)),
    ].sort(),
    measurements,
    measurements_not_shown: Math.max(0, both.length - bounds.measurements),
    measurements_unmatched: baseKeys.size + candidateKeys.size - 2 * both.length,
  };
}
