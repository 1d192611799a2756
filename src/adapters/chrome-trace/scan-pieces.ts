/**
 * Scans a large Chrome trace in pieces (piece-plan.ts cuts it, piece-scan.ts scans each
 * piece) on the threads the worker lends and on this thread, which scans the next piece
 * itself whenever the piece it must merge next is still being scanned elsewhere. Pieces
 * are merged into the pipeline in document order, at most a few ahead of the merge; an
 * error is raised in document order, where a sequential scan would have raised it. A
 * piece that did not end where it was cut stops the whole: the caller scans the trace
 * sequentially instead.
 */
import type { AdapterLimits, PayloadFile, PieceTask, PieceThreads } from "../adapter.ts";
import type { TracePiecePlan } from "./piece-plan.ts";
import { pieceError, scanTracePiece, type TracePieceResult } from "./piece-scan.ts";
import type { ChromeTracePipeline } from "./trace-pipeline.ts";

/** Whether every piece was proven and merged (false: a cut was wrong; the pipeline is then unusable). */
export async function scanInPieces(pipeline: ChromeTracePipeline, plan: TracePiecePlan, file: PayloadFile, threads: PieceThreads, limits: AdapterLimits): Promise<boolean> {
  const { pieces, documentStart, prefixEnd } = plan;
  const task = (k: number): PieceTask => ({
    prefix: [documentStart, prefixEnd],
    piece: pieces[k]!,
    offset: pieces[k]![0] - documentStart,
    last: k === pieces.length - 1,
    limits: { maxNestingDepth: limits.maxNestingDepth, maxArgsBytes: limits.maxArgsBytes },
  });
  const prefix = await file.read(documentStart, prefixEnd);
  const scanHere = async (k: number): Promise<TracePieceResult> => {
    const t = task(k);
    return scanTracePiece({ prefix, bytes: await file.read(t.piece[0], t.piece[1]), offset: t.offset, last: t.last, limits: t.limits });
  };
  // Pieces scanned but not merged yet stay few: one per thread, one here, one waiting.
  const ahead = threads.count + 2;
  const results = new Map<number, Promise<TracePieceResult> | TracePieceResult>();
  let assigned = 0;
  let busy = 0;
  const canAssign = (merged: number) => assigned < pieces.length && assigned - merged < ahead;
  try {
    for (let merged = 0; merged < pieces.length; ) {
      while (busy < threads.count && canAssign(merged)) {
        busy++;
        const scanned = (threads.run("chrome-trace", task(assigned)) as Promise<TracePieceResult>).finally(() => busy--);
        // Awaited in order below; one left behind after an earlier failure must not surface as unhandled.
        scanned.catch(() => {});
        results.set(assigned++, scanned);
      }
      const next = results.get(merged);
      if (next === undefined || (next instanceof Promise && canAssign(merged))) {
        // The next piece is not ready: scan one here meanwhile.
        const k = assigned++;
        results.set(k, await scanHere(k));
        continue;
      }
      const result = await next;
      results.delete(merged++);
      if (!result.ok) {
        pipeline.checkEventLimit(result.events);
        throw pieceError(result);
      }
      if (!result.proven) return false;
      pipeline.mergePiece(result);
    }
    return true;
  } finally {
    await Promise.allSettled(results.values());
    await threads.release();
  }
}
