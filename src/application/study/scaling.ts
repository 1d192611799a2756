/**
 * analyze_scaling over a recorded experiment: read-only, pins HEAD, never collects missing trials.
 */
import { analyzeScaling, type ScalingResult } from "../../analysis/scaling.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { getExperiment, listTrials } from "./experiment-record.ts";

export async function scalingOfExperiment(
  ws: Workspace,
  experimentId: string,
): Promise<ScalingResult> {
  const experiment = getExperiment(ws, experimentId);
  const trials = listTrials(ws, experimentId, 100_000, 0).items;
  const d = experiment.protocol.definition;
  return analyzeScaling(
    SnapshotHandle.pin(ws.paths),
    {
      experiment_id: experimentId,
      metric: d.primary_metric,
      scope: d.metric_scope,
      scaling_parameter: d.scaling_parameter,
    },
    trials,
  );
}
