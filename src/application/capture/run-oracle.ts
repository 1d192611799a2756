/**
 * Validation of a capture by the workload's declared oracle: its own argv (templates
 * resolved, executable bound at planning) run through the broker with the workload's
 * environment, cwd and containment. Exit 0 passes; another exit code fails; a timeout,
 * signal or policy stop is an error of the oracle, never a pass. A receipt written to
 * $FLAMEOX_ORACLE_RECEIPT may refine a pass (oracle-receipt.ts). Its output is kept as
 * validation_output artifacts.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../broker/process-broker.ts";
import type { ValidationStatus } from "../../domain/records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { registerStaged } from "../register-artifact.ts";
import type { CaptureValidation } from "./capture-result.ts";
import type { CapturePlan } from "./capture-plan.ts";
import { ORACLE_RECEIPT_VARIABLE, receiptVerdict } from "./oracle-receipt.ts";
import { type CaptureDirs, containedArgv } from "./run-capture.ts";

const ORACLE_OUTPUT_BYTES = 1024 * 1024;
/**
 * In the output directory, the one place a managed sandbox lets the oracle write; removed first so
 * the workload cannot leave one.
 */
const RECEIPT_FILE = "flameox-oracle-receipt.json";

export async function runValidationOracle(
  ws: Workspace,
  plan: CapturePlan,
  runId: string,
  dirs: CaptureDirs,
  signal?: AbortSignal,
): Promise<CaptureValidation> {
  const oracle = plan.oracle!;
  const receiptPath = join(dirs.outDir, RECEIPT_FILE);
  rmSync(receiptPath, { force: true, recursive: true });
  const result = await runProcess({
    argv: containedArgv(ws, plan, dirs)([oracle.executable.path, ...oracle.argv.slice(1)]),
    pinned: [oracle.executable],
    cwd: plan.cwd,
    env: { ...plan.childEnv, [ORACLE_RECEIPT_VARIABLE]: receiptPath },
    deadlineAt: Date.now() + oracle.timeout_seconds * 1000,
    maxOutputBytes: ORACLE_OUTPUT_BYTES,
    graceMs: plan.limits.grace_ms,
    signal,
    stdout: { kind: "file", path: join(dirs.stagingDir, "oracle-stdout") },
    stderr: { kind: "file", path: join(dirs.stagingDir, "oracle-stderr") },
    // Project code like the workload: its escaped descendants are claimed and killed when it ends,
    // never left to flameox.
    sampling: {
      intervalMs: plan.limits.sampling_interval_ms,
      maxTreeRssBytes: plan.limits.max_memory_bytes,
    },
  });
  const artifactIds: string[] = [];
  for (const [role, sink] of [
    ["oracle_stdout", result.output.stdout],
    ["oracle_stderr", result.output.stderr],
  ] as const) {
    const meta = {
      runId,
      displayName: role,
      kind: "validation_output",
      mediaType: "text/plain",
      role,
      producer: "flameox.oracle",
      producerVersion: "1",
      sensitivity: "internal" as const,
    };
    artifactIds.push(
      (
        await registerStaged(
          ws,
          { sha256Hex: sink.sha256Hex, byteLength: sink.keptBytes, stagedPath: sink.path! },
          meta,
        )
      ).artifact_id,
    );
  }
  const t = result.termination;
  const base = {
    strength: oracle.strength,
    exit_code: t.kind === "exited" ? t.exitCode : null,
    wall_ms: Math.round(result.wallMs),
    artifact_ids: artifactIds,
  };
  if (t.kind !== "exited") {
    const status: ValidationStatus = t.kind === "cancelled" ? "cancelled" : "error";
    return { ...base, status, reason: `oracle_${t.kind}`, receipt: null };
  }
  return { ...base, ...receiptVerdict(t.exitCode, receiptPath) };
}
