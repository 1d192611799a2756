/**
 * Staging directories of in-flight operations (`staging/<op>/`) carry a lease file naming
 * the flameox process that owns them and, once one is started, its parse worker. That is
 * what lets `flameox recover` prove an operation dead (its owner is gone), stop a worker
 * that outlived it and reclaim the directory, and what lets `validate` tell leftovers
 * from work in progress. The directory is created with its lease already inside (built
 * under a temporary name, then renamed), so no crash leaves an operation directory
 * without an owner.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { currentLease, type ProcessLease } from "./process-lease.ts";
import type { WorkspacePaths } from "./workspace-paths.ts";

export const STAGING_LEASE_FILE = "lease.json";

export interface StagingLease {
  operation_id: string;
  owner: ProcessLease;
  /** The parse worker started for this operation (it leads its own process group). */
  worker: { pid: number; start_time: string | null } | null;
}

export interface StagingEntry {
  name: string;
  dir: string;
  /**
   * Null for a directory without a readable lease (left by an older flameox, or not an operation).
   */
  lease: StagingLease | null;
}

/** Creates `staging/<operationId>/` owned by this process. */
export function claimStagingDir(paths: WorkspacePaths, operationId: string): string {
  const dir = join(paths.staging, operationId);
  const building = join(paths.staging, `.${operationId}.claim`);
  mkdirSync(building, { recursive: true });
  const lease: StagingLease = { operation_id: operationId, owner: currentLease(), worker: null };
  try {
    writeFileSync(join(building, STAGING_LEASE_FILE), JSON.stringify(lease));
    renameSync(building, dir);
  } catch (error) {
    // A full disk fails the lease's write: no half-built claim is left behind.
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/** Records the worker an operation started, so recovery can stop it if its owner dies. */
export function recordStagingWorker(
  dir: string,
  worker: { pid: number; startTime: string | null },
): void {
  const lease = readLease(dir);
  if (!lease) return;
  writeFileSync(
    join(dir, STAGING_LEASE_FILE),
    JSON.stringify({ ...lease, worker: { pid: worker.pid, start_time: worker.startTime } }),
  );
}

export function listStaging(paths: WorkspacePaths): StagingEntry[] {
  if (!existsSync(paths.staging)) return [];
  return readdirSync(paths.staging).map((name) => {
    const dir = join(paths.staging, name);
    return { name, dir, lease: readLease(dir) };
  });
}

function readLease(dir: string): StagingLease | null {
  try {
    const lease = JSON.parse(readFileSync(join(dir, STAGING_LEASE_FILE), "utf8")) as StagingLease;
    return typeof lease?.owner?.pid === "number" ? lease : null;
  } catch {
    return null;
  }
}
