/**
 * Cross-treatment validation of an experiment's comparison: only an oracle of strength
 * `cross_treatment_equivalence` that passed on every member trial supports "the candidate
 * preserves the output". A failed oracle invalidates the comparison; a missing or weaker
 * one leaves it exploratory.
 */
import type { Mismatch } from "../../analysis/comparison/compatibility.ts";
import type { TrialRecord } from "../../domain/experiment/trial.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";

export function oracleMismatches(
  ws: Workspace,
  experimentId: string,
  runIds: string[],
): Mismatch[] {
  const records = new StudyRecords(ws.control.db);
  const trials = records.list<TrialRecord>(
    "trials",
    "experiment_id = ?",
    [experimentId],
    "cell_index, attempt",
    100_000,
  ).items;
  const members = trials.filter((t) => t.run_id !== null && runIds.includes(t.run_id));
  const failed = members
    .filter((t) => t.oracle && t.oracle.status !== "pass")
    .map((t) => t.run_id!);
  if (failed.length > 0)
    return [
      {
        code: "cross_treatment_validation_failed",
        invalidating: true,
        message: `the oracle did not pass for ${failed.length} member trial(s)`,
        run_ids: failed.slice(0, 20),
      },
    ];
  const weak = members
    .filter((t) => t.oracle?.strength !== "cross_treatment_equivalence")
    .map((t) => t.run_id!);
  if (weak.length > 0 || members.length < runIds.length) {
    return [
      {
        code: "cross_treatment_validation_missing",
        invalidating: false,
        message: "not every member trial has a passing cross_treatment_equivalence oracle",
        run_ids: weak.slice(0, 20),
      },
    ];
  }
  return [];
}
