/**
 * `flameox recover`: closes runs whose owning process is provably gone (another boot,
 * pid absent, or pid reused by a process with another start time) as failed with
 * RUN_ABANDONED, stops the orphaned workload group if it still runs, and removes the
 * run's staging. A run whose lease is alive, or cannot be judged, is never touched.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { killOrphanedGroup } from "../../broker/process-reaper.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { type OpenRun, openRuns } from "../../storage/open-runs.ts";
import { judgeLease } from "../../storage/process-lease.ts";
import type { Workspace } from "../../storage/workspace.ts";

export interface RecoverResult {
  checked: number;
  closed: { run_id: string; run_type: string; reason: string; orphaned_processes_killed: number }[];
  live: { run_id: string; pid: number }[];
  unknown: { run_id: string; reason: string }[];
}

export function recoverRuns(ws: Workspace): RecoverResult {
  const result: RecoverResult = { checked: 0, closed: [], live: [], unknown: [] };
  for (const run of openRuns(ws.control.db)) {
    result.checked += 1;
    const verdict = judgeLease({ pid: run.lease_pid, boot_id: run.lease_boot_id, start_time: run.lease_start_time });
    if (verdict.state === "alive") result.live.push({ run_id: run.run_id, pid: run.lease_pid! });
    else if (verdict.state === "unknown") result.unknown.push({ run_id: run.run_id, reason: verdict.reason });
    else result.closed.push(close(ws, run, verdict.reason, verdict.cause === "rebooted"));
  }
  return result;
}

function close(ws: Workspace, run: OpenRun, reason: string, rebooted: boolean): RecoverResult["closed"][number] {
  const workload = (run.execution as { workload_process?: { pid: number; start_time: string | null } | null } | null)?.workload_process;
  // After a reboot the pid names nothing of ours; otherwise the start time proves identity.
  const killed = workload?.start_time && !rebooted ? killOrphanedGroup(workload.pid, workload.start_time) : 0;
  const message = `The run was abandoned: its owning flameox process is gone (${reason}); closed by flameox recover`;
  const limitation: Limitation = { code: "abandoned", message: killed > 0 ? `${message}; ${killed} orphaned workload process(es) were killed` : message };
  ws.control.withWriteLock(() => {
    const current = ws.runs.get(run.run_id);
    const open = (status: string) => status === "running" || status === "pending" || status === "planned";
    ws.runs.update(run.run_id, {
      execution_status: open(current.execution_status) ? "failed" : undefined,
      capture_status: open(current.capture_status) ? "failed" : undefined,
      extraction_status: open(current.extraction_status) ? "failed" : undefined,
      validation_status: open(current.validation_status) ? "error" : undefined,
      limitations: [...current.limitations, limitation],
      error: { code: "RUN_ABANDONED", message },
      releaseLease: true,
    });
  });
  rmSync(join(ws.paths.staging, run.run_id), { recursive: true, force: true });
  return { run_id: run.run_id, run_type: run.run_type, reason, orphaned_processes_killed: killed };
}
