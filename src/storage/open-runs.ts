/**
 * Runs some phase of which is still pending or running, with their leases: the
 * candidates of `flameox recover`. Read-only; recovery decides and writes.
 */
import type { Database } from "bun:sqlite";
import type { RunType } from "../domain/records.ts";

export interface OpenRun {
  run_id: string;
  run_type: RunType;
  lease_pid: number | null;
  lease_boot_id: string | null;
  lease_start_time: string | null;
  execution: unknown;
}

export function openRuns(db: Database): OpenRun[] {
  const rows = db
    .query(
      `SELECT run_id, run_type, lease_pid, lease_boot_id, lease_start_time, execution_json FROM runs
       WHERE execution_status IN ('planned', 'running') OR capture_status IN ('pending', 'running')
          OR extraction_status IN ('pending', 'running')
          OR validation_status IN ('pending', 'running')
       ORDER BY created_at`,
    )
    .all() as (Omit<OpenRun, "execution"> & { execution_json: string | null })[];
  return rows.map(({ execution_json, ...rest }) => ({
    ...rest,
    execution: execution_json ? JSON.parse(execution_json) : null,
  }));
}
