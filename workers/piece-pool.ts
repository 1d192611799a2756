/**
 * Threads that scan pieces of a payload file (PieceThreads of src/adapters/adapter.ts),
 * one per core besides the parser's, for adapters that can cut their format at proven boundaries.
 * While a
 * trace is scanned the encode thread has nothing to do yet (rows come after the scan), so
 * the cores are free; the threads are destroyed when the scan ends. Not offered where
 * threads cannot start (a `bun build --compile` binary).
 */
import { availableParallelism } from "node:os";
import type TinypoolClass from "tinypool";
import { loadTinypool } from "./load-tinypool.ts";
import type { PayloadFile, PieceThreads, ProducerAdapter } from "../src/adapters/adapter.ts";
import { readRange } from "./read-range.ts";

export interface PiecePool {
  pieces: { file: PayloadFile; threads: PieceThreads } | undefined;
  /**
   * Threads that scanned at least one piece (0 when the adapter scanned in one piece after all).
   */
  readonly usedThreads: number;
  close(): Promise<void>;
}

/**
 * Payload bytes below which a payload is always scanned in one piece: a piece thread costs its
 * runtime's start and JIT warm-up (~0.5 s of CPU), more than a small payload's whole scan.
 */
export const PIECES_MIN_PAYLOAD = 48 << 20;
/**
 * Memory budget from which the piece threads fit beside the parser (each holds a scanner and a
 * piece or two).
 */
export const PIECES_MIN_BUDGET = 1 << 30;

export function usePieceThreads(
  memoryBudgetBytes: number,
  payloadBytes: number,
  compressed: boolean,
): boolean {
  return (
    !compressed && memoryBudgetBytes >= PIECES_MIN_BUDGET && payloadBytes >= PIECES_MIN_PAYLOAD
  );
}

/**
 * Piece threads for an adapter: `configured` when it is 0 or more, else one per core to
 * spare. A piece thread costs its own runtime start and JIT warm-up (~0.5 s of CPU at the
 * first piece): on this project's 2-core machine one thread beside the parser scanned a
 * 100 MB trace no faster (0.90x, `bench/import-bench.ts --one-piece`), so two cores stay
 * with the parser and the rest of the machine, and the encoding thread keeps a third when
 * the adapter writes rows while it scans.
 */
export function pieceThreadCount(
  pieceScan: ProducerAdapter["pieceScan"],
  encodeThread: boolean,
  configured = -1,
  cores = availableParallelism(),
): number {
  if (!pieceScan) return 0;
  if (configured >= 0) return configured;
  return Math.max(0, cores - 2 - (pieceScan.rowsWhileScanning && encodeThread ? 1 : 0));
}

export function startPiecePool(path: string, size: number, threads: number): PiecePool {
  const here = import.meta.url;
  if (threads < 1 || here.includes("/$bunfs/") || here.includes("%24bunfs"))
    return { pieces: undefined, usedThreads: 0, close: async () => {} };
  let pool: TinypoolClass | null;
  try {
    const Tinypool = loadTinypool();
    // Started now: a thread loads its runtime and modules while this one plans the cuts and scans
    // the first piece.
    pool = new Tinypool({
      filename: new URL("./piece-thread.ts", here).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 1_000,
    });
  } catch {
    return { pieces: undefined, usedThreads: 0, close: async () => {} };
  }
  const file: PayloadFile = { size, read: async (start, end) => readRange(path, [start, end]) };
  const close = async () => {
    const ending = pool;
    pool = null;
    await ending?.destroy();
  };
  let ran = 0;
  return {
    pieces: {
      file,
      threads: {
        count: threads,
        run: (scanner, task) => {
          ran++;
          return pool!.run({ path, scanner, task });
        },
        release: close,
      },
    },
    get usedThreads() {
      return Math.min(ran, threads);
    },
    close,
  };
}
