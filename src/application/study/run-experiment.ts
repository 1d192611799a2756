/**
 * run_experiment: stores the protocol and registers every planned cell as `unattempted`
 * before the first trial runs, then runs the cells in their randomized order through the
 * TrialExecutor, recording each attempt's outcome as it ends. Cancellation stops at the
 * current trial; the cells not reached stay `unattempted`. A trial that cannot start
 * because a plan binding drifted (WORKLOAD_CHANGED, SOURCE_CHANGED, …) stops the
 * experiment (`stopped`, with the code) and stays unattempted with the reason.
 * Afterwards one run set per treatment is frozen with block ids, ready for `analyze compare`.
 */
import { randomUUID } from "node:crypto";
import { asFlameoxError, FlameoxError } from "../../domain/errors.ts";
import type { TrialOutcome, TrialRecord } from "../../domain/experiment/trial.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { freezeRunSet } from "./run-sets.ts";
import { cellKey, type ExperimentProtocol } from "./experiment-protocol.ts";
import type { TrialExecutor } from "./trial-executor.ts";
import { ensureProjectUnchanged } from "./experiment-config.ts";
import { outcomeOf, type ExperimentRecord } from "./experiment-record.ts";

export async function runExperiment(
  ws: Workspace,
  protocol: ExperimentProtocol,
  executor: TrialExecutor,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<ExperimentRecord> {
  ensureProjectUnchanged(ws, protocol);
  const experimentId = `exp_${randomUUID()}`;
  const records = new StudyRecords(ws.control.db);
  const now = nowIso();
  const trials: TrialRecord[] = protocol.cells.map((cell) => ({
    ...cell,
    schema_version: 1,
    trial_id: `trial_${randomUUID()}`,
    experiment_id: experimentId,
    attempt: 1,
    outcome: "unattempted",
    run_id: null,
    started_at: null,
    finished_at: null,
    failure_class: null,
    message: null,
    oracle: null,
    artifact_ids: [],
  }));
  // The protocol and every cell exist before the first process starts.
  ws.control.withWriteLock(() => {
    records.insert("experiments", {
      experiment_id: experimentId,
      name: protocol.name,
      investigation_id: protocol.investigation_id,
      hypothesis_id: protocol.hypothesis_id,
      experiment_design_id: protocol.definition.experiment_design_id,
      status: "running",
      created_at: now,
      updated_at: now,
      protocol_json: JSON.stringify({ experiment_id: experimentId, created_at: now, ...protocol }),
    });
    for (const t of trials) records.insert("trials", trialColumns(t));
  });
  let stopped: string | null = null;
  for (const [done, trial] of trials.entries()) {
    if (options.signal?.aborted) {
      stopped = "cancelled";
      break;
    }
    save(
      ws,
      records,
      Object.assign(trial, { outcome: "running" as TrialOutcome, started_at: nowIso() }),
    );
    let result: Awaited<ReturnType<TrialExecutor["run"]>>;
    try {
      result = await executor.run({
        ws,
        experiment_id: experimentId,
        trial_id: trial.trial_id,
        block_id: trial.block_id,
        variant: trial.variant,
        instance: protocol.instances[cellKey(trial)]!,
        metric_source: protocol.definition.metric_source,
        signal: options.signal,
      });
    } catch (error) {
      // The trial could not start (a binding no longer holds): it stays unattempted, with why.
      const refusal = asFlameoxError(error);
      save(
        ws,
        records,
        Object.assign(trial, {
          outcome: "unattempted" as TrialOutcome,
          started_at: null,
          failure_class: refusal.code,
          message: refusal.message,
        }),
      );
      stopped = refusal.code;
      break;
    }
    save(ws, records, Object.assign(trial, { ...result, finished_at: nowIso() }));
    options.onProgress?.(done + 1, trials.length);
    if (result.outcome === "cancelled") {
      stopped = "cancelled";
      break;
    }
  }
  const runSets: Record<string, string> = {};
  for (const key of [...new Set(trials.map(cellKey))]) {
    const members = trials.filter((t) => cellKey(t) === key && t.run_id !== null);
    if (members.length === 0) continue;
    runSets[key] = freezeRunSet(ws, {
      members: members.map((t) => ({
        run_id: t.run_id!,
        trial_id: t.trial_id,
        block_id: t.block_id,
        included: t.outcome === "succeeded",
        reason: t.outcome === "succeeded" ? null : `trial ${t.outcome}`,
      })),
      selection: { experiment_id: experimentId, treatment: key },
    }).run_set_id;
  }
  const outcome = { ...outcomeOf(trials), run_set_ids: runSets, stopped };
  const status = stopped === null ? "completed" : stopped === "cancelled" ? "cancelled" : "stopped";
  ws.control.withWriteLock(() =>
    records.update("experiments", experimentId, {
      status,
      updated_at: nowIso(),
      outcome_json: JSON.stringify(outcome),
    }),
  );
  return { experiment_id: experimentId, status, protocol, outcome };
}

function trialColumns(t: TrialRecord): Record<string, string | number | null> {
  return {
    trial_id: t.trial_id,
    experiment_id: t.experiment_id,
    cell_index: t.cell_index,
    block_index: t.block_index,
    order_in_block: t.order_in_block,
    attempt: t.attempt,
    variant: t.variant,
    outcome: t.outcome,
    run_id: t.run_id,
    updated_at: nowIso(),
    record_json: JSON.stringify(t),
  };
}

function save(ws: Workspace, records: StudyRecords, t: TrialRecord): void {
  const { trial_id: _id, experiment_id: _e, ...columns } = trialColumns(t);
  try {
    ws.control.withWriteLock(() => records.update("trials", t.trial_id, columns));
  } catch (error) {
    throw new FlameoxError(
      "INTERNAL_ERROR",
      `Cannot record trial ${t.trial_id}: ${(error as Error).message}`,
    );
  }
}
