/**
 * Runs one trial through the subprocess broker (argv only, scrubbed environment, one
 * deadline, process-group kill). The workload writes its samples as
 * flameox.benchmark-samples.v1 JSON to $FLAMEOX_SAMPLES_PATH (or, with metric_source
 * `process_wall_time`, the broker's wall time is the one sample); the file is registered
 * to the trial's run and extracted by the parse worker. The oracle then runs through the
 * broker too; a receipt can never upgrade a failed or timed-out oracle process.
 */
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { newOperationId, newRunId } from "../../domain/ids.ts";
import type { OracleReceipt } from "../../domain/experiment/trial.ts";
import { buildChildEnvironment } from "../../broker/child-environment.ts";
import { runProcess } from "../../broker/process-broker.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { extractArtifact } from "../extract-artifact.ts";
import { registerFile } from "../register-artifact.ts";
import { runOracle } from "./trial-oracle.ts";
import type { TrialExecution, TrialExecutor, TrialRequest } from "./trial-executor.ts";

const ENV_ALLOWLIST = ["PATH", "HOME", "LANG", "TMPDIR"];
const MAX_OUTPUT_BYTES = 1 << 20;

/** argv[0] as an absolute path: project-relative when it has a slash, else found on PATH once. */
export function resolveExecutable(projectRoot: string, command: string, path: string | undefined): string | null {
  if (isAbsolute(command)) return command;
  if (command.includes("/")) return join(projectRoot, command);
  return Bun.which(command, { PATH: path ?? "" });
}

export class BrokerTrialExecutor implements TrialExecutor {
  readonly name = "broker-trial-executor";

  async run(request: TrialRequest): Promise<TrialExecution> {
    const { ws, instance } = request;
    const runId = newRunId();
    const staging = join(ws.paths.staging, newOperationId());
    await mkdir(staging, { recursive: true });
    ws.control.withWriteLock(() => {
      ws.runs.create(runId, "execution", { execution_status: "running", capture_status: "running", extraction_status: "pending" });
      recordWorkloadIdentity(ws, runId, instance.workload_definition_id, instance.workload_instance_id);
    });
    try {
      const executable = resolveExecutable(ws.paths.projectRoot, instance.argv[0]!, process.env.PATH);
      if (!executable) return await this.finish(ws, runId, { outcome: "infrastructure_failed", failure_class: "executable_not_found", message: `Cannot find ${instance.argv[0]} on PATH` });
      const samplesPath = join(staging, "samples.json");
      const env = buildChildEnvironment(process.env, ENV_ALLOWLIST, {
        ...instance.environment,
        FLAMEOX_SAMPLES_PATH: samplesPath,
        FLAMEOX_TRIAL_ID: request.trial_id,
        FLAMEOX_BLOCK_ID: request.block_id,
        FLAMEOX_VARIANT: request.variant,
      });
      const cwd = join(ws.paths.projectRoot, instance.cwd);
      const result = await runProcess({ argv: [executable, ...instance.argv.slice(1)], cwd, env, deadlineAt: Date.now() + instance.timeout_seconds * 1000, maxOutputBytes: MAX_OUTPUT_BYTES, signal: request.signal });
      const term = result.termination;
      if (term.kind === "timeout") return await this.finish(ws, runId, { outcome: "timed_out", failure_class: "timeout", message: `exceeded ${instance.timeout_seconds} s` });
      if (term.kind === "cancelled") return await this.finish(ws, runId, { outcome: "cancelled", failure_class: "cancelled", message: "cancelled" });
      if (term.kind !== "exited" || term.exitCode !== 0) {
        const how = term.kind === "exited" ? `exit code ${term.exitCode}` : `signal ${term.signal}`;
        return await this.finish(ws, runId, { outcome: "failed", failure_class: "process_failed", message: `the workload stopped with ${how}` });
      }
      if (request.metric_source === "process_wall_time") {
        const doc = { schema_version: "flameox.benchmark-samples.v1", producer: "flameox-broker", producer_version: "1", benchmarks: [{ name: instance.name, unit: "ms", measurement_clock: "host", samples: [result.wallMs] }] };
        await writeFile(samplesPath, JSON.stringify(doc));
      }
      if (!existsSync(samplesPath)) return await this.finish(ws, runId, { outcome: "invalid", failure_class: "no_samples", message: "the workload wrote no samples to $FLAMEOX_SAMPLES_PATH" });
      const registered = await registerFile(ws, samplesPath, staging, {
        runId, displayName: "samples.json", kind: "benchmark_samples", mediaType: "application/json", role: "output", producer: null, producerVersion: null, sensitivity: "normal",
      });
      await extractArtifact(ws, { runId, artifactId: registered.artifact_id, registrationId: registered.registration_id, displayName: "samples.json", adapter: "benchmark-samples", signal: request.signal });
      const oracle = instance.oracle ? await runOracle(ws, instance, env, staging, request.signal) : null;
      const outcome = oracle && oracle.status !== "pass" ? "oracle_failed" : "succeeded";
      return await this.finish(ws, runId, { outcome, failure_class: outcome === "oracle_failed" ? `oracle_${oracle!.status}` : null, message: oracle?.reason ?? null }, oracle, [registered.artifact_id]);
    } catch (error) {
      return await this.finish(ws, runId, { outcome: "infrastructure_failed", failure_class: "infrastructure", message: (error as Error).message });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private async finish(
    ws: Workspace,
    runId: string,
    result: Pick<TrialExecution, "outcome" | "failure_class" | "message">,
    oracle: OracleReceipt | null = null,
    artifactIds: string[] = [],
  ): Promise<TrialExecution> {
    const execution = result.outcome === "timed_out" ? "timed_out" : result.outcome === "cancelled" ? "cancelled" : result.outcome === "failed" || result.outcome === "infrastructure_failed" ? "failed" : "succeeded";
    ws.control.withWriteLock(() =>
      ws.runs.update(runId, {
        execution_status: execution,
        capture_status: artifactIds.length > 0 ? "registered" : execution === "cancelled" ? "cancelled" : "failed",
        validation_status: oracle ? (oracle.status === "pass" ? "passed" : oracle.status === "error" ? "error" : "failed") : "not_requested",
        ...(result.message && execution !== "succeeded" ? { error: { code: result.failure_class ?? "failed", message: result.message } } : {}),
      }),
    );
    return { run_id: runId, ...result, oracle, artifact_ids: artifactIds };
  }
}

/** Stores what ran on the run row, when this workspace's schema has the identity columns (issue 4). */
function recordWorkloadIdentity(ws: Workspace, runId: string, definitionId: string, instanceId: string): void {
  const columns = new Set((ws.control.db.query("PRAGMA table_info(runs)").all() as { name: string }[]).map((c) => c.name));
  if (columns.has("workload_definition_id") && columns.has("workload_instance_id")) {
    ws.control.db.query("UPDATE runs SET workload_definition_id = ?, workload_instance_id = ? WHERE run_id = ?").run(definitionId, instanceId, runId);
  }
}
