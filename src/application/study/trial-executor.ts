/**
 * The seam between experiments and capture. An experiment asks a TrialExecutor to run one
 * workload instance as a new execution run and to return that run, its outcome and its
 * oracle receipt. `BrokerTrialExecutor` (broker-trial-executor.ts) is the stand-in until
 * the issue-4 capture service takes this role: it runs the instance through the subprocess
 * broker, registers the samples the workload wrote, extracts them and runs the oracle.
 */
import type { TrialOutcome, OracleReceipt } from "../../domain/experiment/trial.ts";
import type { WorkloadInstance } from "../../domain/workload/workload-instance.ts";
import type { Workspace } from "../../storage/workspace.ts";

export interface TrialRequest {
  ws: Workspace;
  experiment_id: string;
  trial_id: string;
  block_id: string;
  variant: string;
  instance: WorkloadInstance;
  /** Where the trial's measurement comes from (see ExperimentDefinition.metric_source). */
  metric_source: "benchmark_samples" | "process_wall_time";
  signal?: AbortSignal;
}

export interface TrialExecution {
  run_id: string | null;
  outcome: Exclude<TrialOutcome, "unattempted" | "running">;
  failure_class: string | null;
  message: string | null;
  oracle: OracleReceipt | null;
  artifact_ids: string[];
}

export interface TrialExecutor {
  readonly name: string;
  run(request: TrialRequest): Promise<TrialExecution>;
}
