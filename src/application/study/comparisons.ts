/**
 * compare_run_sets (read-only preview, no write lock) and record_comparison (persists an
 * immutable record with parameter and result digests). Both compute the same result from
 * the pinned commit; recording adds ids and digests, never different statistics.
 */
import { randomUUID } from "node:crypto";
import { digestOf } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import {
  compareRunSets,
  type CompareRequest,
  type ComparisonResult,
} from "../../analysis/comparison/compare-run-sets.ts";
import type { Mismatch } from "../../analysis/comparison/compatibility.ts";
import { POLARITIES } from "../../analysis/statistics/decision.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { readRunIdentities } from "../../storage/run-identities.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { RunSetRecord } from "../../domain/run-set.ts";
import { getRunSet } from "./run-sets.ts";
import { oracleMismatches } from "./oracle-mismatches.ts";

export interface RecordedComparison extends ComparisonResult {
  comparison_id: string;
  created_at: string;
  parameters_digest: string;
  result_digest: string;
}

export function checkCompareRequest(request: CompareRequest): void {
  const bad = (field: string, message: string) =>
    new FlameoxError("INVALID_ARGUMENTS", message, { details: { field } });
  if (!(request.practical_threshold > 0 && request.practical_threshold < 10))
    throw bad(
      "practical_threshold",
      `Expected practical_threshold in (0, 10) but found ${request.practical_threshold}`,
    );
  if (!POLARITIES.includes(request.polarity))
    throw bad(
      "polarity",
      `Expected polarity to be one of ${POLARITIES.join(", ")} but found ${request.polarity}`,
    );
  const level = request.confidence_level ?? 0.95;
  if (!(level >= 0.5 && level < 1))
    throw bad("confidence_level", `Expected confidence_level in [0.5, 1) but found ${level}`);
  const seed = request.random_seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw bad("random_seed", `Expected random_seed to be a non-negative integer but found ${seed}`);
  const resamples = request.resamples ?? 9999;
  if (!Number.isInteger(resamples) || resamples < 9999 || resamples > 99_999)
    throw bad("resamples", `Expected resamples in [9999, 99999] but found ${resamples}`);
}

/**
 * A run set compared with itself (or with another set of the very same runs) on the same
 * scope has every ratio exactly 1: it would report "no meaningful difference" about nothing.
 */
function refuseSelfComparison(
  baseline: RunSetRecord,
  candidate: RunSetRecord,
  request: CompareRequest,
): void {
  const runs = (set: RunSetRecord) =>
    set.members
      .map((m) => m.run_id)
      .sort()
      .join("\n");
  // Two benchmarks (scopes) of the same runs are two different things measured.
  const scopesDiffer =
    (request.baseline_scope ?? request.scope ?? null) !==
    (request.candidate_scope ?? request.scope ?? null);
  if (
    !scopesDiffer &&
    (baseline.run_set_id === candidate.run_set_id || runs(baseline) === runs(candidate))
  ) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `The baseline and candidate are the same runs (${baseline.run_set_id}` +
        (baseline.run_set_id === candidate.run_set_id ? "" : ` and ${candidate.run_set_id}`) +
        `); a comparison needs two different run sets`,
      {
        details: { field: "candidate_run_set_id" },
      },
    );
  }
}

export async function previewComparison(
  ws: Workspace,
  request: CompareRequest,
): Promise<ComparisonResult> {
  checkCompareRequest(request);
  const baseline = getRunSet(ws, request.baseline_run_set_id);
  const candidate = getRunSet(ws, request.candidate_run_set_id);
  refuseSelfComparison(baseline, candidate, request);
  const snapshot = SnapshotHandle.pin(ws.paths);
  const runIds = [...baseline.members, ...candidate.members].map((m) => m.run_id);
  const extra: Mismatch[] = request.experiment_id
    ? oracleMismatches(ws, request.experiment_id, runIds)
    : [];
  return compareRunSets(
    snapshot,
    { baseline, candidate },
    readRunIdentities(ws.control.db, runIds),
    request,
    extra,
  );
}

export interface ScopeComparisonRequest
  extends Omit<CompareRequest, "baseline_run_set_id" | "candidate_run_set_id" | "scope"> {
  run_id: string;
  baseline_scope: string;
  candidate_scope: string;
}

/**
 * Two benchmarks inside one imported file (hyperfine commands, pyperf benchmarks): the
 * run is its own one-member run set on both sides, held in memory only (a preview writes
 * nothing), and the sides differ by scope.
 */
export async function previewScopeComparison(
  ws: Workspace,
  request: ScopeComparisonRequest,
): Promise<ComparisonResult> {
  const { run_id, ...rest } = request;
  ws.runs.get(run_id); // RUN_NOT_FOUND when unknown
  const snapshot = SnapshotHandle.pin(ws.paths);
  const set = oneRunSet(run_id, snapshot);
  const compare: CompareRequest = {
    ...rest,
    baseline_run_set_id: set.run_set_id,
    candidate_run_set_id: set.run_set_id,
  };
  checkCompareRequest(compare);
  if (request.baseline_scope === request.candidate_scope) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `The baseline and candidate scopes are both ${JSON.stringify(request.baseline_scope)}; ` +
        `compare two different benchmarks of the run`,
      { details: { field: "candidate_scope" } },
    );
  }
  return compareRunSets(
    snapshot,
    { baseline: set, candidate: set },
    readRunIdentities(ws.control.db, [run_id]),
    compare,
  );
}

/** One run as its own one-member run set, held in memory only (a preview writes nothing). */
function oneRunSet(runId: string, snapshot: SnapshotHandle): RunSetRecord {
  const members = [{ run_id: runId, trial_id: null, block_id: null, included: true, reason: null }];
  return {
    schema_version: 1,
    run_set_id: `run:${runId}`,
    corpus_commit_id: snapshot.commitId,
    created_at: nowIso(),
    selection: { run_ids: [runId] },
    members,
    membership_digest: digestOf(members),
  };
}

export interface RunComparisonRequest
  extends Omit<CompareRequest, "baseline_run_set_id" | "candidate_run_set_id"> {
  baseline_run_id: string;
  candidate_run_id: string;
}

/**
 * Two runs (a benchmark file imported before and after a change), each its own one-member
 * run set held in memory: the same statistics as compare_run_sets, with the samples of
 * each run paired by position since two single runs have no blocks.
 */
export async function previewRunComparison(
  ws: Workspace,
  request: RunComparisonRequest,
  pinned?: SnapshotHandle,
): Promise<ComparisonResult> {
  const { baseline_run_id, candidate_run_id, ...rest } = request;
  ws.runs.get(baseline_run_id);
  ws.runs.get(candidate_run_id);
  if (baseline_run_id === candidate_run_id) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `The baseline and candidate are both run ${baseline_run_id}; compare two different runs`,
      { details: { field: "candidate_run_id" } },
    );
  }
  const snapshot = pinned ?? SnapshotHandle.pin(ws.paths);
  const baseline = oneRunSet(baseline_run_id, snapshot);
  const candidate = oneRunSet(candidate_run_id, snapshot);
  const compare: CompareRequest = {
    ...rest,
    baseline_run_set_id: baseline.run_set_id,
    candidate_run_set_id: candidate.run_set_id,
  };
  checkCompareRequest(compare);
  return compareRunSets(
    snapshot,
    { baseline, candidate },
    readRunIdentities(ws.control.db, [baseline_run_id, candidate_run_id]),
    compare,
  );
}

export async function recordComparison(
  ws: Workspace,
  request: CompareRequest,
): Promise<RecordedComparison> {
  const result = await previewComparison(ws, request);
  const record: RecordedComparison = {
    ...result,
    comparison_id: `cmp_${randomUUID()}`,
    created_at: nowIso(),
    parameters_digest: digestOf(request),
    result_digest: digestOf(result),
  };
  ws.control.withWriteLock(() =>
    new StudyRecords(ws.control.db).insert("comparisons", {
      comparison_id: record.comparison_id,
      experiment_id: request.experiment_id ?? null,
      baseline_run_set_id: request.baseline_run_set_id,
      candidate_run_set_id: request.candidate_run_set_id,
      corpus_commit_id: record.corpus_commit_id,
      decision: record.decision,
      validity: record.validity,
      parameters_digest: record.parameters_digest,
      result_digest: record.result_digest,
      created_at: record.created_at,
      record_json: JSON.stringify(record),
    }),
  );
  return record;
}

export function getComparison(ws: Workspace, comparisonId: string): RecordedComparison {
  return new StudyRecords(ws.control.db).get<RecordedComparison>("comparisons", comparisonId);
}
