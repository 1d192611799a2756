/**
 * Executing a rechecked plan as one run. The run id exists (with a lease naming this
 * process) before anything starts; execution, capture, extraction and validation
 * statuses advance independently; every artifact is registered to the run and profile
 * artifacts are extracted through the same path as imports. Whatever happens, the run
 * ends terminal, its lease released and its staging removed.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TerminationEvidence } from "../../domain/capture.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { asFlameoxError, FlameoxError } from "../../domain/errors.ts";
import { newRunId } from "../../domain/ids.ts";
import type { ExecutionStatus, ExtractionStatus, ValidationStatus } from "../../domain/records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { CaptureResult, ExecutionDocument } from "./capture-result.ts";
import type { CapturePlan } from "./capture-plan.ts";
import type { ExecutionExtension } from "./execution-extension.ts";
import { extractCaptured } from "./extract-captured.ts";
import { displayCommand, executablesOf } from "./plan-preview.ts";
import { ensureWritableRoots } from "./project-paths.ts";
import { registerOutputs } from "./register-outputs.ts";
import { runCaptureProcesses } from "./run-capture.ts";
import { runValidationOracle } from "./run-oracle.ts";

export interface ExecuteOptions {
  signal?: AbortSignal;
  onProgress?: (phase: string, done: number, total: number) => void;
  /**
   * Additions of a caller that runs this plan as one step of a larger protocol (an experiment
   * trial).
   */
  extension?: ExecutionExtension;
}

export async function executePlan(
  ws: Workspace,
  bound: CapturePlan,
  options: ExecuteOptions = {},
): Promise<CaptureResult> {
  const progress = (phase: string) => options.onProgress?.(phase, 0, 1);
  const runId = newRunId();
  const dirs = {
    stagingDir: join(ws.paths.staging, runId),
    outDir: join(ws.paths.staging, runId, "out"),
  };
  // An extension adds only flameox's own variables, for this execution; every binding stays the
  // plan's.
  const plan: CapturePlan = options.extension
    ? { ...bound, childEnv: { ...bound.childEnv, ...options.extension.environment(dirs) } }
    : bound;
  const doc = executionDocument(ws, plan);
  const update = (change: Parameters<Workspace["runs"]["update"]>[1]) =>
    ws.control.withWriteLock(() => ws.runs.update(runId, change));
  ws.control.withWriteLock(() =>
    ws.runs.create(
      runId,
      "execution",
      {
        execution_status: "running",
        capture_status: "running",
        extraction_status: "not_requested",
        validation_status: plan.oracle ? "pending" : "not_requested",
        limitations: plan.limitations,
        execution: doc,
      },
      {
        workload_definition_id: plan.workload.workload_definition_id,
        workload_instance_id: plan.workload.workload_instance_id,
        source_state_id: plan.source.source_state_id,
        environment_id: plan.environment.environment_id,
        workload: {
          name: plan.workload.name,
          workload_definition_id: plan.workload.workload_definition_id,
          workload_instance_id: plan.workload.workload_instance_id,
          parameters: plan.workload.parameters,
        },
        source_identity: plan.source,
        environment_identity: plan.environment,
      },
    ),
  );
  try {
    mkdirSync(dirs.outDir, { recursive: true });
    if (plan.bwrap) ensureWritableRoots(ws.paths.projectRoot, plan.writableRoots);
    progress("capturing");
    const outcome = await runCaptureProcesses(ws, plan, dirs, {
      signal: options.signal,
      // The workload's own identity, so `recover` can stop it if this process dies.
      onSpawn: ({ pid, startTime }) => {
        doc.workload_process = { pid, start_time: startTime };
        update({ execution: doc });
      },
    });
    Object.assign(doc, { termination: outcome.termination, resources: outcome.resources });
    const execution = executionStatusOf(outcome.termination);
    const cancelled = execution === "cancelled";
    progress("registering");
    const extra = options.extension
      ? await options.extension.collect(dirs, outcome)
      : { outputs: [], limitations: [] };
    const outputs = await registerOutputs(ws, plan, runId, dirs, outcome, extra.outputs);
    doc.summary = outputs.summary;
    const limitations: Limitation[] = [
      ...plan.limitations,
      ...outputs.limitations,
      ...extra.limitations,
      ...terminationLimitations(outcome.termination),
    ];
    update({
      execution_status: execution,
      capture_status: cancelled ? "cancelled" : "registered",
      limitations,
      execution: doc,
      error: processError(outcome.termination),
    });

    progress("extracting");
    const extracted = cancelled
      ? { extractions: [], status: "not_requested" as ExtractionStatus, limitations: [] }
      : await extractCaptured(ws, runId, outputs.extractable, options.signal);
    let validation: CaptureResult["validation"] = null;
    let validationStatus: ValidationStatus = "not_requested";
    if (plan.oracle) {
      if (execution === "succeeded") {
        progress("validating");
        validation = await runValidationOracle(ws, plan, runId, dirs, options.signal);
        validationStatus = validation.status;
      } else {
        validationStatus = cancelled ? "cancelled" : "not_requested";
        limitations.push({
          code: "oracle_skipped",
          message: `The oracle did not run: the workload ${execution.replace("_", " ")}`,
        });
      }
    }
    doc.validation = validation;
    const finalLimitations = byCode([...limitations, ...extracted.limitations]);
    update({
      extraction_status: extracted.status,
      validation_status: validationStatus,
      limitations: finalLimitations,
      execution: doc,
      releaseLease: true,
    });
    progress("completed");
    const run = ws.runs.get(runId);
    return {
      run_id: runId,
      adapter: doc.adapter,
      workload: {
        name: plan.workload.name,
        workload_definition_id: plan.workload.workload_definition_id,
        workload_instance_id: plan.workload.workload_instance_id,
        parameters: plan.workload.parameters,
      },
      execution_status: run.execution_status,
      capture_status: run.capture_status,
      extraction_status: run.extraction_status,
      validation_status: run.validation_status,
      termination: outcome.termination,
      resources: outcome.resources,
      containment: plan.containment,
      artifacts: outputs.artifacts,
      extractions: extracted.extractions,
      validation,
      summary: outputs.summary,
      source: {
        source_state_id: plan.source.source_state_id,
        identity_quality: plan.source.identity_quality,
      },
      environment: {
        environment_id: plan.environment.environment_id,
        identity_quality: plan.environment.identity_quality,
      },
      limitations: finalLimitations,
      next_tool: extracted.extractions.some((e) => (e.tables.frame_measurements ?? 0) > 0)
        ? "analyze_hotspots"
        : null,
    };
  } catch (error) {
    const failure = asFlameoxError(error);
    const cancelled = failure.code === "PROCESS_CANCELLED";
    const current = ws.runs.get(runId);
    update({
      execution_status:
        current.execution_status === "running" ? (cancelled ? "cancelled" : "failed") : undefined,
      capture_status:
        current.capture_status === "running" ? (cancelled ? "cancelled" : "failed") : undefined,
      validation_status: current.validation_status === "pending" ? "not_requested" : undefined,
      error: { code: failure.code, message: failure.message },
      releaseLease: true,
    });
    throw new FlameoxError(failure.code, failure.message, {
      runId,
      remediation: failure.remediation,
      details: failure.details,
    });
  } finally {
    rmSync(dirs.stagingDir, { recursive: true, force: true });
  }
}

function executionDocument(ws: Workspace, plan: CapturePlan): ExecutionDocument {
  return {
    adapter: {
      name: plan.adapter.name,
      version: plan.adapter.version,
      options: plan.adapter.options,
    },
    producer: plan.producer,
    command: {
      argv: displayCommand(plan.command, ws.paths.projectRoot),
      cwd: plan.workload.cwd,
      environment_names: Object.keys(plan.childEnv).sort(),
    },
    executables: executablesOf(plan, ws.paths.projectRoot),
    limits: plan.limits,
    containment: plan.containment,
    plan: {
      request_digest: plan.request_digest,
      planned_at: plan.planned_at,
      configuration_id: plan.configuration_id,
    },
    workload_process: null,
    termination: null,
    resources: null,
    summary: null,
    validation: null,
  };
}

function executionStatusOf(t: TerminationEvidence): ExecutionStatus {
  if (t.kind === "timeout") return "timed_out";
  if (t.kind === "cancelled") return "cancelled";
  return t.kind === "exited" && t.exit_code === 0 ? "succeeded" : "failed";
}

function processError(t: TerminationEvidence): { code: string; message: string } | null {
  switch (t.kind) {
    case "exited":
      return t.exit_code === 0
        ? null
        : { code: "PROCESS_FAILED", message: `The workload exited with code ${t.exit_code}` };
    case "signaled":
      return { code: "PROCESS_FAILED", message: `The workload was killed by ${t.signal}` };
    case "timeout":
      return {
        code: "PROCESS_TIMEOUT",
        message: "The workload exceeded its deadline and was stopped",
      };
    case "cancelled":
      return {
        code: "PROCESS_CANCELLED",
        message: "The capture was cancelled and the workload stopped",
      };
    case "policy":
      return {
        code: "EXECUTION_REFUSED",
        message:
          `The workload was stopped by resource ` +
          `policy: ${t.policy?.metric} ${t.policy?.observed} crossed ${t.policy?.limit}`,
      };
  }
}

function terminationLimitations(t: TerminationEvidence): Limitation[] {
  const out: Limitation[] = [];
  if (t.escaped_descendants_killed > 0)
    out.push({
      code: "escaped_descendants",
      message:
        `${t.escaped_descendants_killed} descendant process(es) had left the process group and ` +
        `were killed at cleanup`,
    });
  if ((t.escaped_descendants_survived ?? 0) > 0)
    out.push({
      code: "escaped_descendants_survived",
      message:
        `${t.escaped_descendants_survived} descendant process(es) that had left the process ` +
        `group were still alive after cleanup's SIGKILL`,
    });
  if (t.descendant_tracking === "session_scan" && t.kind !== "cancelled") {
    out.push({
      code: "descendants_not_adopted",
      message:
        "flameox could not make itself a child subreaper here: a descendant that leaves both " +
        "the session and the process group between two samples can outlive the run unseen",
    });
  }
  if (t.kind === "policy")
    out.push({
      code: "policy_termination",
      message:
        `Stopped by policy: ${t.policy?.metric} observed ${t.policy?.observed}, ` +
        `limit ${t.policy?.limit}`,
    });
  return out;
}

/** One limitation per code: the first says it (adapter and collector often name the same gap). */
function byCode(limitations: Limitation[]): Limitation[] {
  const seen = new Set<string>();
  return limitations.filter((l) => !seen.has(l.code) && seen.add(l.code));
}
