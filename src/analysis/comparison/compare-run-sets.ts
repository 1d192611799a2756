/**
 * compare_run_sets: the paired comparison of two frozen run sets on one metric. Reads the
 * members' samples from the pinned commit, pairs them, applies the compatibility checks,
 * and computes the median paired log ratio with its BCa interval, the decision against the
 * practical threshold, a secondary Wilcoxon p-value and MAD-flagged outliers.
 */
import { FlameoxError } from "../../domain/errors.ts";
import type { RunSetRecord } from "../../domain/run-set.ts";
import type { RunIdentity } from "../../storage/run-identities.ts";
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { measurementGenerations, readMeasurements } from "../measurements/read-measurements.ts";
import {
  comparePaired,
  ESTIMAND,
  type IntervalDetail,
  type PairValue,
} from "../statistics/paired-log-ratio.ts";
import type { Decision, Polarity } from "../statistics/decision.ts";
import type { WilcoxonResult } from "../statistics/wilcoxon.ts";
import { median } from "../statistics/descriptive.ts";
import { compatibilityMismatches, type MemberFacts, type Mismatch } from "./compatibility.ts";
import { memberSamples, pairMembers, type MemberSamples, type Pairing } from "./member-values.ts";

export const COMPARISON_RECIPE = "compare_run_sets";
export const COMPARISON_VERSION = "1";

export interface CompareRequest {
  baseline_run_set_id: string;
  candidate_run_set_id: string;
  experiment_id?: string | null;
  metric: string;
  scope?: string | null;
  /** Per-side scopes, to compare two benchmarks (commands) of the same runs; default: scope. */
  baseline_scope?: string | null;
  candidate_scope?: string | null;
  unit?: string | null;
  polarity: Polarity;
  practical_threshold: number;
  confidence_level?: number;
  random_seed?: number;
  resamples?: number;
}

export interface SideCounts {
  attempted: number;
  eligible: number;
  failed: number;
  excluded: number;
}

/** A member whose trial crashed, timed out, was cancelled or failed its oracle. */
export interface FailedTrial {
  side: "baseline" | "candidate";
  run_id: string;
  trial_id: string | null;
  block_id: string | null;
  reason: string;
}

export interface ComparisonResult {
  schema_version: 1;
  recipe: typeof COMPARISON_RECIPE;
  recipe_version: string;
  corpus_commit_id: string;
  request: CompareRequest;
  metric: string;
  unit: string | null;
  polarity: Polarity;
  estimand: typeof ESTIMAND;
  method: string;
  independent_unit: "block" | "sample";
  paired: true;
  pairing: Pairing;
  practical_threshold: number;
  confidence_level: number;
  random_seed: number;
  resamples: number;
  baseline_value: number | null;
  candidate_value: number | null;
  absolute_change: number | null;
  relative_change: number | null;
  effect_size: number | null;
  confidence_low: number | null;
  confidence_high: number | null;
  decision: Decision;
  validity: "valid" | "exploratory" | "invalid";
  mismatches: Mismatch[];
  baseline: SideCounts;
  candidate: SideCounts;
  complete_pair_n: number;
  /** Complete pairs needed for a decision at this confidence level. */
  minimum_pairs: number;
  failed_trials: FailedTrial[];
  /** Every pair as compared, so the result can be audited: values and their log ratio. */
  pairs: PairValue[];
  interval: IntervalDetail | null;
  wilcoxon: WilcoxonResult | null;
  outlier_blocks: string[];
  claim_level: "derived";
  limitations: { code: string; message: string }[];
}

const FAILED = new Set(["failed", "timed_out", "cancelled"]);
/** Trial outcomes that mean "this attempt did not produce a valid measurement". */
const FAILED_TRIAL =
  /^trial (failed|timed_out|cancelled|oracle_failed|infrastructure_failed|invalid)\b/;

/**
 * Samples of several benchmarks (scopes) in one member would be pooled into one median as
 * if they measured one thing; without a scope that is refused, naming the scopes.
 */
function refusePooledScopes(members: MemberSamples[], scope: string | null, side: string): void {
  if (scope !== null) return;
  const scopes = [...new Set(members.flatMap((m) => m.samples.map((s) => s.scope)))].sort();
  if (scopes.length <= 1) return;
  throw new FlameoxError(
    "INVALID_ARGUMENTS",
    `The ${side} samples span ${scopes.length} benchmarks (${scopes
      .slice(0, 10)
      .map((x) => JSON.stringify(x))
      .join(", ")}${scopes.length > 10 ? ", …" : ""}); pooling them as blocks would mix different \
measurements. Pass scope (or baseline_scope and candidate_scope)`,
    {
      details: { field: "scope", scopes: scopes.slice(0, 50) },
    },
  );
}

function failure(
  member: RunSetRecord["members"][number],
  identity: RunIdentity | undefined,
): string | null {
  if (member.reason !== null && FAILED_TRIAL.test(member.reason)) return member.reason;
  if (identity !== undefined && FAILED.has(identity.execution_status))
    return `run ${identity.execution_status}`;
  if (identity !== undefined && identity.capture_status === "failed") return "capture failed";
  return null;
}

function failedTrials(
  side: FailedTrial["side"],
  set: RunSetRecord,
  identities: Map<string, RunIdentity>,
): FailedTrial[] {
  return set.members.flatMap((m) => {
    const reason = failure(m, identities.get(m.run_id));
    return reason === null
      ? []
      : [{ side, run_id: m.run_id, trial_id: m.trial_id, block_id: m.block_id, reason }];
  });
}

export async function compareRunSets(
  snapshot: SnapshotHandle,
  sets: { baseline: RunSetRecord; candidate: RunSetRecord },
  identities: Map<string, RunIdentity>,
  request: CompareRequest,
  extraMismatches: Mismatch[] = [],
): Promise<ComparisonResult> {
  const allMembers = [...sets.baseline.members, ...sets.candidate.members];
  const generations = measurementGenerations(snapshot, { runIds: allMembers.map((m) => m.run_id) });
  const rows = await readMeasurements(snapshot, generations);
  const baseScope = request.baseline_scope ?? request.scope ?? null;
  const candScope = request.candidate_scope ?? request.scope ?? null;
  // A failed trial never contributes a value: its block is incomplete, and says so.
  const failed = [
    ...failedTrials("baseline", sets.baseline, identities),
    ...failedTrials("candidate", sets.candidate, identities),
  ];
  const failedRuns = new Set(failed.map((f) => f.run_id));
  const usable = (set: RunSetRecord) => set.members.filter((m) => !failedRuns.has(m.run_id));
  const base = memberSamples(usable(sets.baseline), rows, {
    metric: request.metric,
    scope: baseScope,
  });
  const cand = memberSamples(usable(sets.candidate), rows, {
    metric: request.metric,
    scope: candScope,
  });
  refusePooledScopes(base, baseScope, "baseline");
  refusePooledScopes(cand, candScope, "candidate");
  const facts: MemberFacts[] = [
    ...base.map((m) => factsOf(m, "baseline")),
    ...cand.map((m) => factsOf(m, "candidate")),
  ];
  function factsOf(m: MemberSamples, side: "baseline" | "candidate"): MemberFacts {
    const gens = generations.filter((g) => g.run_ids.includes(m.member.run_id));
    return {
      run_id: m.member.run_id,
      side,
      identity: identities.get(m.member.run_id) ?? null,
      in_commit: gens.length > 0,
      collectors: [
        ...new Set(
          gens.map((g) => {
            const mf = snapshot.manifest(g);
            return `${mf.extractor.name}@${mf.extractor.version}`;
          }),
        ),
      ],
      units: [...new Set(m.samples.map((s) => s.unit))],
    };
  }
  const mismatches = [...compatibilityMismatches(facts), ...extraMismatches];
  if (request.unit) {
    const other = [...new Set(facts.flatMap((f) => f.units))].filter((u) => u !== request.unit);
    if (other.length > 0)
      mismatches.push({
        code: "unit_differs",
        invalidating: true,
        message: `requested unit ${request.unit} but samples are in ${other.join(", ")}`,
      });
  }
  const crossScope = baseScope !== candScope;
  const { pairing, pairs } = pairMembers(base, cand, { ignoreScope: crossScope });
  if (pairing === "position")
    mismatches.push({
      code: "positional_pairing",
      invalidating: false,
      message:
        "members carry no block ids, so they were paired by position; the design was not a " +
        "blocked one",
    });
  const stats = comparePaired(pairs, {
    threshold: request.practical_threshold,
    polarity: request.polarity,
    confidenceLevel: request.confidence_level ?? 0.95,
    seed: request.random_seed ?? 0,
    resamples: request.resamples,
  });
  const limitations: { code: string; message: string }[] = [];
  if (pairing === "sample_hierarchy")
    limitations.push({
      code: "within_run_pairing",
      message:
        "one run per side: samples were paired by position in the producer's hierarchy; they " +
        "share no block, so the interval describes these two runs only",
    });
  if (
    crossScope &&
    pairing === "sample_hierarchy" &&
    sets.baseline.members.every((m) => sets.candidate.members.some((c) => c.run_id === m.run_id))
  ) {
    limitations.push({
      code: "same_run_scopes",
      message:
        `${baseScope} and ${candScope} were measured in the same run, one after the other ` +
        `(hyperfine and pyperf do not interleave them): drift of the machine during the run is ` +
        `not separated from the difference`,
    });
  }
  if (failed.length > 0) {
    const named = failed
      .slice(0, 20)
      .map(
        (f) =>
          `${f.side} ${f.trial_id ?? f.run_id}` +
          `${f.block_id === null ? "" : ` (block ${f.block_id})`}: ${f.reason}`,
      );
    limitations.push({
      code: "failed_trials",
      message:
        `${failed.length} trial(s) failed and count as failed, not excluded; their blocks have ` +
        `no pair: ${named.join("; ")}${failed.length > 20 ? "; …" : ""}`,
    });
  }
  if (stats.exploratory) {
    limitations.push({
      code: "below_confirmatory_minimum",
      message:
        `${stats.eligible_pairs} complete pair(s); ` +
        `a ${(request.confidence_level ?? 0.95) * 100}% interval of a median needs at ` +
        `least ${stats.minimum_pairs}, so no decision is made (descriptive ` +
        `only)` +
        (failed.length > 0 ? `; ${failed.length} failed trial(s) are listed in failed_trials` : ""),
    });
  } else if (stats.interval_note !== null) {
    limitations.push({
      code: "interval_undefined",
      message: `${stats.interval_note}; the decision is inconclusive`,
    });
  }
  const invalid = mismatches.some((m) => m.invalidating);
  const validity = invalid
    ? "invalid"
    : mismatches.length > 0 || stats.exploratory
      ? "exploratory"
      : "valid";
  const eligible = pairs.filter(
    (p) =>
      p.baseline > 0 &&
      p.candidate > 0 &&
      Number.isFinite(p.baseline) &&
      Number.isFinite(p.candidate),
  );
  const med = (xs: number[]) => (xs.length === 0 ? null : median(xs));
  const bValue = med(eligible.map((p) => p.baseline));
  const cValue = med(eligible.map((p) => p.candidate));
  const unit = [...new Set(facts.flatMap((f) => f.units))][0] ?? null;
  return {
    schema_version: 1,
    recipe: COMPARISON_RECIPE,
    recipe_version: COMPARISON_VERSION,
    corpus_commit_id: snapshot.commitId,
    request,
    metric: request.metric,
    unit,
    polarity: request.polarity,
    estimand: ESTIMAND,
    method: stats.method,
    independent_unit: pairing === "sample_hierarchy" ? "sample" : "block",
    paired: true,
    pairing,
    practical_threshold: request.practical_threshold,
    confidence_level: request.confidence_level ?? 0.95,
    random_seed: request.random_seed ?? 0,
    resamples: stats.interval?.resamples ?? request.resamples ?? 9999,
    baseline_value: bValue,
    candidate_value: cValue,
    absolute_change: bValue !== null && cValue !== null ? cValue - bValue : null,
    relative_change: stats.relative_change,
    effect_size: stats.relative_change,
    confidence_low: stats.confidence_low,
    confidence_high: stats.confidence_high,
    decision: stats.decision,
    validity,
    mismatches,
    baseline: counts(sets.baseline, base, failedRuns),
    candidate: counts(sets.candidate, cand, failedRuns),
    complete_pair_n: stats.eligible_pairs,
    minimum_pairs: stats.minimum_pairs,
    failed_trials: failed,
    pairs: stats.pairs,
    interval: stats.interval,
    wilcoxon: stats.wilcoxon,
    outlier_blocks: stats.outlier_blocks,
    claim_level: "derived",
    limitations,
  };
}

/** failed: trials that did not produce a valid value; excluded: members left out on purpose. */
function counts(set: RunSetRecord, members: MemberSamples[], failedRuns: Set<string>): SideCounts {
  const failed = set.members.filter((m) => failedRuns.has(m.run_id)).length;
  const excluded = set.members.filter((m) => !m.included && !failedRuns.has(m.run_id)).length;
  return {
    attempted: set.members.length,
    eligible: members.filter((m) => m.value !== null && m.value > 0).length,
    failed,
    excluded,
  };
}
