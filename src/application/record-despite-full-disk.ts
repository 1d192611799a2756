/**
 * Records the end of an operation that failed for lack of space. The write itself may hit
 * the same full disk; then space is made and the write tried once more, so the run is
 * closed rather than left open for `recover`: the space reserve is given up, and the WAL
 * is checkpointed and truncated (its file holds old page versions the database no longer
 * needs once they are copied back). A busy lock is waited for within the publication budget.
 */
import { storageFailure } from "../domain/errors.ts";
import { releaseSpaceReserve } from "../storage/space-reserve.ts";
import type { Workspace } from "../storage/workspace.ts";
import { writeWithinLockBudget } from "./publish-within-lock-budget.ts";

export function recordDespiteFullDisk(ws: Workspace, write: () => void): void {
  try {
    writeWithinLockBudget(ws, write);
  } catch (error) {
    if (storageFailure(error)?.code !== "STORAGE_FULL") throw error;
    releaseSpaceReserve(ws.paths);
    try {
      ws.control.db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
    } catch {
      // Another connection may be reading; the retry below says whether there is room.
    }
    writeWithinLockBudget(ws, write);
  }
}
