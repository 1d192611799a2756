/** The experiment result model, its outcome counts, and reading experiments and trials back. */
import { FlameoxError } from "../../domain/errors.ts";
import { TRIAL_OUTCOMES, type TrialRecord } from "../../domain/experiment/trial.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { ExperimentProtocol } from "./experiment-protocol.ts";

export interface ExperimentOutcome {
  counts: Record<string, number>;
  attempted: number;
  complete_blocks: number;
  incomplete_blocks: number;
  first_failure_trial_id: string | null;
  run_set_ids: Record<string, string>;
  stopped: string | null;
}

export interface ExperimentRecord {
  experiment_id: string;
  status: string;
  protocol: ExperimentProtocol;
  outcome: ExperimentOutcome | null;
}

export function outcomeOf(
  trials: TrialRecord[],
): Omit<ExperimentOutcome, "run_set_ids" | "stopped"> {
  const counts = Object.fromEntries(
    TRIAL_OUTCOMES.map((o) => [o, trials.filter((t) => t.outcome === o).length]),
  );
  const blocks = new Map<number, boolean>();
  for (const t of trials)
    blocks.set(t.block_index, (blocks.get(t.block_index) ?? true) && t.outcome === "succeeded");
  const complete = [...blocks.values()].filter(Boolean).length;
  return {
    counts,
    attempted: trials.filter((t) => t.outcome !== "unattempted").length,
    complete_blocks: complete,
    incomplete_blocks: blocks.size - complete,
    first_failure_trial_id:
      trials.find((t) => t.outcome !== "succeeded" && t.outcome !== "unattempted")?.trial_id ??
      null,
  };
}

export function getExperiment(ws: Workspace, experimentId: string): ExperimentRecord {
  const db = ws.control.db;
  const row = db
    .query("SELECT status, protocol_json, outcome_json FROM experiments WHERE experiment_id = ?")
    .get(experimentId) as {
    status: string;
    protocol_json: string;
    outcome_json: string | null;
  } | null;
  if (!row)
    throw new FlameoxError("RECORD_NOT_FOUND", `Cannot find experiment ${experimentId}`, {
      remediation: ["Run one with `flameox experiment run NAME`"],
    });
  return {
    experiment_id: experimentId,
    status: row.status,
    protocol: JSON.parse(row.protocol_json),
    outcome: row.outcome_json ? JSON.parse(row.outcome_json) : null,
  };
}

export function listTrials(
  ws: Workspace,
  experimentId: string,
  limit: number,
  offset: number,
): { items: TrialRecord[]; total: number } {
  getExperiment(ws, experimentId);
  return new StudyRecords(ws.control.db).list<TrialRecord>(
    "trials",
    "experiment_id = ?",
    [experimentId],
    "cell_index, attempt",
    limit,
    offset,
  );
}
