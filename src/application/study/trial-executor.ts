/**
 * The seam between experiments and capture. An experiment asks a TrialExecutor to run one
 * workload instance as a new execution run and to return that run, its outcome and its
 * oracle receipt. `CaptureTrialExecutor` (capture-trial-executor.ts) does it through the
 * capture service's own path: the instance's capture plan, bound at plan_experiment, is
 * rechecked and executed as a capture run, so trial runs carry the same workload, source
 * and environment identities as any capture, and comparisons of trials can check them.
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
  /**
   * Every attempted trial resolves to an execution, failures included. It throws (a
   * FlameoxError) only when the trial cannot start because a binding of the plan no longer
   * holds; nothing ran, and the experiment stops with the remaining cells unattempted.
   */
  run(request: TrialRequest): Promise<TrialExecution>;
}
