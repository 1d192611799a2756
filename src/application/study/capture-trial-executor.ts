/**
 * Runs each trial through the capture service's own execution path: the capture plan
 * bound for the trial's workload instance at plan_experiment is rechecked just before
 * the trial (a drift refuses it with the capture's own code, e.g. WORKLOAD_CHANGED or
 * SOURCE_CHANGED) and executed as one capture run, so a trial run records what every
 * capture records: workload definition and instance ids, source and environment
 * identity, bound executables with digests, termination and resources, artifacts, and
 * the oracle's verdict as the run's validation status.
 */
import { asFlameoxError, FlameoxError } from "../../domain/errors.ts";
import type { OracleReceipt, OracleStrength } from "../../domain/experiment/trial.ts";
import type { ValidationStatus } from "../../domain/records.ts";
import type { CaptureContext } from "../capture/capture-context.ts";
import type { CapturePlan } from "../capture/capture-plan.ts";
import type { CaptureResult, CaptureValidation } from "../capture/capture-result.ts";
import { executePlan } from "../capture/execute-capture.ts";
import { recheckPlan } from "../capture/recheck-plan.ts";
import type { TrialExecution, TrialExecutor, TrialRequest } from "./trial-executor.ts";
import { SAMPLES_DISPLAY_NAME, SAMPLES_KIND, trialExtension } from "./trial-extension.ts";

export class CaptureTrialExecutor implements TrialExecutor {
  readonly name = "capture-trial-executor";

  /** `captures`: the experiment's bound capture plans by workload_instance_id. */
  constructor(
    private readonly ctx: CaptureContext,
    private readonly captures: Record<string, CapturePlan>,
  ) {}

  async run(request: TrialRequest): Promise<TrialExecution> {
    const plan = this.captures[request.instance.workload_instance_id];
    if (!plan)
      throw new FlameoxError(
        "INVALID_CAPTURE_PLAN",
        `Cannot run trial ${request.trial_id}: the experiment plan bound no capture for its ` +
          `workload instance`,
        { remediation: ["Plan the experiment again"] },
      );
    // Thrown before any run exists: the experiment stops here and this cell stays unattempted.
    await recheckPlan(this.ctx, plan);
    try {
      return trialOf(
        await executePlan(request.ws, plan, {
          signal: request.signal,
          extension: trialExtension(request),
        }),
      );
    } catch (error) {
      const failure = asFlameoxError(error);
      const cancelled = failure.code === "PROCESS_CANCELLED";
      return {
        run_id: failure.runId ?? null,
        outcome: cancelled ? "cancelled" : "infrastructure_failed",
        failure_class: cancelled ? "cancelled" : failure.code,
        message: failure.message,
        oracle: null,
        artifact_ids: [],
      };
    }
  }
}

/**
 * A trial's outcome from its capture: how the workload ended, whether its samples were published,
 * what its oracle said.
 */
export function trialOf(result: CaptureResult): TrialExecution {
  const artifactIds = result.artifacts.map((a) => a.artifact_id);
  const oracle = result.validation ? oracleReceiptOf(result.validation) : null;
  const base = { run_id: result.run_id, oracle, artifact_ids: artifactIds };
  const t = result.termination;
  if (result.execution_status === "timed_out")
    return {
      ...base,
      outcome: "timed_out",
      failure_class: "timeout",
      message: "the workload exceeded its deadline",
    };
  if (result.execution_status === "cancelled")
    return { ...base, outcome: "cancelled", failure_class: "cancelled", message: "cancelled" };
  if (result.execution_status !== "succeeded") {
    if (t.kind === "policy")
      return {
        ...base,
        outcome: "failed",
        failure_class: "resource_policy",
        message:
          `stopped by resource policy: ${t.policy?.metric} ${t.policy?.observed} ` +
          `crossed ${t.policy?.limit}`,
      };
    const how = t.kind === "exited" ? `exit code ${t.exit_code}` : `signal ${t.signal}`;
    return {
      ...base,
      outcome: "failed",
      failure_class: "process_failed",
      message: `the workload stopped with ${how}`,
    };
  }
  const samples = result.artifacts.find(
    (a) => a.kind === SAMPLES_KIND && a.display_name === SAMPLES_DISPLAY_NAME,
  );
  if (!samples)
    return {
      ...base,
      outcome: "invalid",
      failure_class: "no_samples",
      message: "the workload wrote no samples to $FLAMEOX_SAMPLES_PATH",
    };
  const extraction = result.extractions.find((e) => e.artifact_id === samples.artifact_id);
  if (extraction?.status !== "published") {
    return {
      ...base,
      outcome: "invalid",
      failure_class: "samples_not_extracted",
      message:
        "the samples were not extracted: " + (extraction?.error?.message ?? "no extraction ran"),
    };
  }
  if (oracle && oracle.status !== "pass")
    return {
      ...base,
      outcome: "oracle_failed",
      failure_class: `oracle_${oracle.status}`,
      message: oracle.reason,
    };
  return { ...base, outcome: "succeeded", failure_class: null, message: null };
}

const RECEIPT_STATUS: Partial<Record<ValidationStatus, OracleReceipt["status"]>> = {
  passed: "pass",
  failed: "fail",
  inconclusive: "inconclusive",
  unsupported: "unsupported",
};

function oracleReceiptOf(v: CaptureValidation): OracleReceipt {
  return {
    strength: v.strength as OracleStrength,
    status: RECEIPT_STATUS[v.status] ?? "error",
    reason: v.reason,
    exit_code: v.exit_code,
    receipt: v.receipt,
  };
}
