/**
 * Runs the pieces of a payload (cut by a format's own plan at proven boundaries) on the
 * threads the worker lends and on this thread, which scans the next piece itself whenever
 * the piece it must take next is still being scanned elsewhere. Results are taken in
 * document order, at most a few ahead; an error is raised in document order, where a
 * sequential scan would have raised it.
 */
import type { PieceScanner, PieceTask, PieceThreads } from "../adapter.ts";

export interface PieceRun<R> {
  scanner: PieceScanner;
  threads: PieceThreads;
  count: number;
  task(k: number): PieceTask;
  /** Scans piece k on this thread (the same function a thread runs). */
  scanHere(k: number): Promise<R>;
  /**
   * Takes piece k's result, in order: false stops the run (a cut proved wrong); throwing raises the
   * piece's error.
   */
  take(result: R, k: number): boolean | Promise<boolean>;
}

/** Whether every piece was taken (false: `take` stopped the run). */
export async function runPieces<R>(run: PieceRun<R>): Promise<boolean> {
  const { threads, count } = run;
  // Pieces scanned but not taken yet stay few: one per thread, one here, one waiting.
  const ahead = threads.count + 2;
  const results = new Map<number, Promise<R> | R>();
  let assigned = 0;
  let busy = 0;
  const canAssign = (taken: number) => assigned < count && assigned - taken < ahead;
  try {
    for (let taken = 0; taken < count; ) {
      while (busy < threads.count && canAssign(taken)) {
        busy++;
        const scanned = (threads.run(run.scanner, run.task(assigned)) as Promise<R>).finally(
          () => busy--,
        );
        // Awaited in order below; one left behind after an earlier failure must not surface as
        // unhandled.
        scanned.catch(() => {});
        results.set(assigned++, scanned);
      }
      const next = results.get(taken);
      if (next === undefined || (next instanceof Promise && canAssign(taken))) {
        // The next piece is not ready: scan one here meanwhile.
        const k = assigned++;
        results.set(k, await run.scanHere(k));
        continue;
      }
      const result = await next;
      results.delete(taken);
      if (!(await run.take(result, taken++))) return false;
    }
    return true;
  } finally {
    await Promise.allSettled(results.values());
    await threads.release();
  }
}
