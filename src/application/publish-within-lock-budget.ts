/**
 * Publication under contention. Parsing runs outside the write lock, so by the time a
 * generation is staged another writer may hold the lock for longer than one wait
 * (`storage.write_lock_timeout_ms`). The staged parts and manifest stay in staging and
 * the publication is tried again, up to PUBLISH_ATTEMPTS waits in all (90 s with the
 * default 30 s wait); a parse is never redone for a lock. After the last attempt the
 * caller closes its run with WRITE_LOCK_TIMEOUT (see extract-artifact.ts).
 */
import { isFlameoxError } from "../domain/errors.ts";
import type { CorpusCommit } from "../storage/corpus-records.ts";
import { publishGeneration, type StagedGeneration } from "../storage/corpus-publisher.ts";
import type { Workspace } from "../storage/workspace.ts";

export const PUBLISH_ATTEMPTS = 3;

export function publishWithinLockBudget(
  ws: Workspace,
  staged: StagedGeneration,
  project: (commit: CorpusCommit) => void,
): { commit: CorpusCommit; attempts: number } {
  for (let attempt = 1; ; attempt++) {
    try {
      return { commit: publishGeneration(ws, staged, project), attempts: attempt };
    } catch (error) {
      if (!isFlameoxError(error, "WRITE_LOCK_TIMEOUT") || attempt >= PUBLISH_ATTEMPTS) throw error;
    }
  }
}

/**
 * Runs a closing write (a run's final status) with the same budget, so a run is closed
 * even when the lock was what failed it. Throws the last WRITE_LOCK_TIMEOUT if the lock
 * never frees; the run's lease then names a process that exits, and `recover` closes it.
 */
export function writeWithinLockBudget(ws: Workspace, write: () => void): void {
  for (let attempt = 1; ; attempt++) {
    try {
      ws.control.withWriteLock(write);
      return;
    } catch (error) {
      if (!isFlameoxError(error, "WRITE_LOCK_TIMEOUT") || attempt >= PUBLISH_ATTEMPTS) throw error;
    }
  }
}
