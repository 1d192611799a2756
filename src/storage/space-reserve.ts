/**
 * A small reserve file in `.diagnostics/` that is given up when the file system fills,
 * so an operation that hit ENOSPC can still record its failure (close its run) instead
 * of leaving it open: SQLite needs a few pages of WAL to commit that last transaction.
 * Created at init and re-created before imports when there is room; never required.
 */
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkspacePaths } from "./workspace-paths.ts";

export const RESERVE_BYTES = 512 * 1024;
const RESERVE_FILE = "space-reserve";

const reservePath = (paths: WorkspacePaths) => join(paths.diagnostics, RESERVE_FILE);

/** Creates the reserve when it is missing; a full or read-only file system just goes without. */
export function ensureSpaceReserve(paths: WorkspacePaths): void {
  const path = reservePath(paths);
  try {
    if (existsSync(path) && statSync(path).size === RESERVE_BYTES) return;
    writeFileSync(path, new Uint8Array(RESERVE_BYTES));
  } catch {
    rmSync(path, { force: true });
  }
}

/** Gives the reserve back to the file system; returns the bytes freed. */
export function releaseSpaceReserve(paths: WorkspacePaths): number {
  const path = reservePath(paths);
  try {
    const size = statSync(path).size;
    rmSync(path, { force: true });
    return size;
  } catch {
    return 0;
  }
}
