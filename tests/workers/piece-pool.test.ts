import { describe, expect, test } from "bun:test";
import {
  PIECES_MIN_BUDGET,
  PIECES_MIN_PAYLOAD,
  pieceThreadCount,
  usePieceThreads,
} from "../../workers/piece-pool.ts";

describe("piece threads", () => {
  test(
    "by default one per core beyond two, and one fewer when rows are encoded while scanning; a " +
      "configured count as it is",
    () => {
      const trace = { scanner: "chrome-trace" as const, rowsWhileScanning: false };
      const otlp = { scanner: "otlp-protobuf" as const, rowsWhileScanning: true };
      expect(pieceThreadCount(trace, true, -1, 2)).toBe(0);
      expect(pieceThreadCount(trace, true, -1, 4)).toBe(2);
      expect(pieceThreadCount(trace, true, -1, 8)).toBe(6);
      expect(pieceThreadCount(otlp, true, -1, 4)).toBe(1);
      expect(pieceThreadCount(otlp, true, -1, 2)).toBe(0);
      // Without an encoding thread the parser encodes between pieces itself.
      expect(pieceThreadCount(otlp, false, -1, 4)).toBe(2);
      expect(pieceThreadCount(trace, true, -1, 1)).toBe(0);
      expect(pieceThreadCount(trace, true, 3, 2)).toBe(3);
      expect(pieceThreadCount(trace, true, 0, 16)).toBe(0);
      expect(pieceThreadCount(undefined, true, 4, 16)).toBe(0);
    },
  );

  test("only for a plain payload from 48 MiB, with a 1 GiB memory budget", () => {
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD, false)).toBe(true);
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD, true)).toBe(false);
    expect(usePieceThreads(PIECES_MIN_BUDGET - 1, PIECES_MIN_PAYLOAD, false)).toBe(false);
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD - 1, false)).toBe(false);
  });
});
