/**
 * Runs a trial's oracle through the broker. Its exit status decides; a receipt written to
 * $FLAMEOX_ORACLE_RECEIPT (flameox.oracle-receipt.v1) can refine a pass into fail,
 * inconclusive or unsupported, never turn a failed, crashed or timed-out oracle into a pass.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OracleReceipt } from "../../domain/experiment/trial.ts";
import type { WorkloadInstance } from "../../domain/workload/workload-instance.ts";
import { runProcess } from "../../broker/process-broker.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { resolveExecutable } from "./broker-trial-executor.ts";

const MAX_RECEIPT_BYTES = 64 * 1024;
const STATUSES = new Set(["pass", "fail", "inconclusive", "unsupported"]);

export async function runOracle(ws: Workspace, instance: WorkloadInstance, env: Record<string, string>, staging: string, signal?: AbortSignal): Promise<OracleReceipt> {
  const oracle = instance.oracle!;
  const receiptPath = join(staging, "oracle-receipt.json");
  const base = { strength: oracle.strength, receipt: null as Record<string, unknown> | null };
  const executable = resolveExecutable(ws.paths.projectRoot, oracle.argv[0]!, env.PATH);
  if (!executable) return { ...base, status: "error", reason: "oracle_executable_not_found", exit_code: null };
  const result = await runProcess({
    argv: [executable, ...oracle.argv.slice(1)],
    cwd: join(ws.paths.projectRoot, instance.cwd),
    env: { ...env, FLAMEOX_ORACLE_RECEIPT: receiptPath },
    deadlineAt: Date.now() + oracle.timeout_seconds * 1000,
    maxOutputBytes: 64 * 1024,
    signal,
  });
  const term = result.termination;
  if (term.kind !== "exited") return { ...base, status: "error", reason: `oracle_${term.kind}`, exit_code: null };
  const receipt = readReceipt(receiptPath);
  if (term.exitCode !== 0) return { ...base, receipt, status: "fail", reason: receiptReason(receipt) ?? `oracle_exit_${term.exitCode}`, exit_code: term.exitCode };
  if (receipt && typeof receipt.status === "string" && STATUSES.has(receipt.status)) {
    return { ...base, receipt, status: receipt.status as OracleReceipt["status"], reason: receiptReason(receipt), exit_code: 0 };
  }
  return { ...base, receipt, status: receipt ? "error" : "pass", reason: receipt ? "invalid_receipt" : null, exit_code: 0 };
}

function readReceipt(path: string): Record<string, unknown> | null {
  if (!existsSync(path) || statSync(path).size > MAX_RECEIPT_BYTES) return null;
  try {
    const value = JSON.parse(readFileSync(path, "utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function receiptReason(receipt: Record<string, unknown> | null): string | null {
  return receipt && typeof receipt.reason === "string" ? receipt.reason.slice(0, 100) : null;
}
