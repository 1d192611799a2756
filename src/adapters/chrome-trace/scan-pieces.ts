/**
 * Scans a large Chrome trace in pieces (piece-plan.ts cuts it, piece-scan.ts scans each
 * piece, common/piece-runner.ts spreads them over the threads) and merges them into the
 * pipeline in document order. A piece that did not end where it was cut stops the whole:
 * the caller scans the trace sequentially instead.
 */
import type { AdapterLimits, PayloadFile, PieceThreads } from "../adapter.ts";
import { runPieces } from "../common/piece-runner.ts";
import type { TracePiecePlan } from "./piece-plan.ts";
import { pieceError, scanTracePiece, type TracePieceResult } from "./piece-scan.ts";
import type { ChromeTracePipeline } from "./trace-pipeline.ts";

/**
 * Whether every piece was proven and merged (false: a cut was wrong; the pipeline is then
 * unusable).
 */
export async function scanInPieces(
  pipeline: ChromeTracePipeline,
  plan: TracePiecePlan,
  file: PayloadFile,
  threads: PieceThreads,
  limits: AdapterLimits,
): Promise<boolean> {
  const { pieces, documentStart, prefixEnd } = plan;
  const task = (k: number) => ({
    prefix: [documentStart, prefixEnd] as [number, number],
    piece: pieces[k]!,
    offset: pieces[k]![0] - documentStart,
    last: k === pieces.length - 1,
    limits: { maxNestingDepth: limits.maxNestingDepth, maxArgsBytes: limits.maxArgsBytes },
  });
  const prefix = await file.read(documentStart, prefixEnd);
  return runPieces<TracePieceResult>({
    scanner: "chrome-trace",
    threads,
    count: pieces.length,
    task,
    scanHere: async (k) => {
      const t = task(k);
      return scanTracePiece({
        prefix,
        bytes: await file.read(t.piece[0], t.piece[1]),
        offset: t.offset,
        last: t.last,
        limits: t.limits,
      });
    },
    take: (result) => {
      if (!result.ok) {
        pipeline.checkEventLimit(result.events);
        throw pieceError(result);
      }
      if (!result.proven) return false;
      pipeline.mergePiece(result);
      return true;
    },
  });
}
