/**
 * Tinypool thread: scans one piece of the payload file (see the PieceThreads of
 * src/adapters/adapter.ts). It reads the piece's byte ranges itself, so the piece never
 * crosses from the parser's heap, and hands its result back with its buffers transferred.
 */
import { markMovable } from "tinypool";
import type { PieceScanner, PieceTask } from "../src/adapters/adapter.ts";
import { pieceBuffers, scanTracePiece } from "../src/adapters/chrome-trace/piece-scan.ts";
import { otlpPieceBuffers, scanOtlpPiece } from "../src/adapters/otlp/piece-scan.ts";
import { readRange } from "./read-range.ts";

function scan(path: string, scanner: PieceScanner, task: PieceTask): [unknown, ArrayBuffer[]] {
  const bytes = readRange(path, task.piece);
  switch (scanner) {
    case "chrome-trace": {
      const result = scanTracePiece({
        prefix: readRange(path, task.prefix),
        bytes,
        offset: task.offset,
        last: task.last,
        limits: task.limits,
      });
      return [result, pieceBuffers(result)];
    }
    case "otlp-protobuf": {
      const result = scanOtlpPiece({ bytes, offset: task.offset, limits: task.limits });
      return [result, otlpPieceBuffers(result)];
    }
  }
}

export default function scanPiece({
  path,
  scanner,
  task,
}: {
  path: string;
  scanner: PieceScanner;
  task: PieceTask;
}): unknown {
  const [result, buffers] = scan(path, scanner, task);
  // Tinypool transfers what a movable result lists instead of copying it.
  const moved = {
    [Symbol.for("Tinypool.transferable")]: buffers,
    [Symbol.for("Tinypool.valueOf")]: result,
  };
  markMovable(moved);
  return moved;
}
