/**
 * freeze_run_set: pins a membership of runs to the current corpus commit. Every named run
 * must exist; members may carry trial and block ids (set by experiments) and may be
 * excluded with a reason, which keeps them visible in every later count.
 */
import { randomUUID } from "node:crypto";
import { digestOf } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import type { RunSetMember, RunSetRecord } from "../../domain/run-set.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";

export const MAX_RUN_SET_MEMBERS = 10_000;

export interface FreezeRunSetRequest {
  run_ids?: string[];
  members?: {
    run_id: string;
    trial_id?: string | null;
    block_id?: string | null;
    included?: boolean;
    reason?: string | null;
  }[];
  selection?: Record<string, unknown>;
}

export function freezeRunSet(ws: Workspace, request: FreezeRunSetRequest): RunSetRecord {
  const members: RunSetMember[] = [
    ...(request.run_ids ?? []).map((run_id) => ({
      run_id,
      trial_id: null,
      block_id: null,
      included: true,
      reason: null,
    })),
    ...(request.members ?? []).map((m) => ({
      run_id: m.run_id,
      trial_id: m.trial_id ?? null,
      block_id: m.block_id ?? null,
      included: m.included ?? true,
      reason: m.reason ?? null,
    })),
  ];
  if (members.length === 0)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      "Cannot freeze an empty run set: give run ids or members",
      { details: { field: "run_ids" } },
    );
  if (members.length > MAX_RUN_SET_MEMBERS)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot freeze ${members.length} members; at most ${MAX_RUN_SET_MEMBERS} are allowed`,
      { details: { field: "members" } },
    );
  const seen = new Set<string>();
  for (const m of members) {
    if (seen.has(m.run_id))
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Run ${m.run_id} is listed twice in the run set`,
        { details: { field: "members" } },
      );
    seen.add(m.run_id);
    if (!ws.runs.exists(m.run_id))
      throw new FlameoxError(
        "RUN_NOT_FOUND",
        `Cannot freeze a run set with unknown run ${m.run_id}`,
        { remediation: ["List runs with `flameox runs list`"] },
      );
    if (!m.included && !m.reason)
      throw new FlameoxError("INVALID_ARGUMENTS", `Excluded member ${m.run_id} needs a reason`, {
        details: { field: "members" },
      });
  }
  const snapshot = SnapshotHandle.pin(ws.paths);
  const record: RunSetRecord = {
    schema_version: 1,
    run_set_id: `rs_${randomUUID()}`,
    corpus_commit_id: snapshot.commitId,
    created_at: nowIso(),
    selection: request.selection ?? {},
    members,
    membership_digest: digestOf(members),
  };
  ws.control.withWriteLock(() =>
    new StudyRecords(ws.control.db).insert("run_sets", {
      run_set_id: record.run_set_id,
      corpus_commit_id: record.corpus_commit_id,
      created_at: record.created_at,
      membership_digest: record.membership_digest,
      record_json: JSON.stringify(record),
    }),
  );
  return record;
}

export function getRunSet(ws: Workspace, runSetId: string): RunSetRecord {
  return new StudyRecords(ws.control.db).get<RunSetRecord>("run_sets", runSetId);
}
