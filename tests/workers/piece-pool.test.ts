import { describe, expect, test } from "bun:test";
import { PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD, pieceThreadCount, usePieceThreads } from "../../workers/piece-pool.ts";

describe("piece threads", () => {
  test("one per core left free while the adapter scans: a trace leaves all but the parser's, OTLP also the encoder's", () => {
    const trace = { scanner: "chrome-trace" as const, rowsWhileScanning: false };
    const otlp = { scanner: "otlp-protobuf" as const, rowsWhileScanning: true };
    expect(pieceThreadCount(trace, true, 2)).toBe(1);
    expect(pieceThreadCount(trace, true, 8)).toBe(7);
    expect(pieceThreadCount(otlp, true, 2)).toBe(0);
    expect(pieceThreadCount(otlp, true, 4)).toBe(2);
    // Without an encoding thread the parser encodes between pieces itself.
    expect(pieceThreadCount(otlp, false, 2)).toBe(1);
    expect(pieceThreadCount(undefined, true, 16)).toBe(0);
    expect(pieceThreadCount(trace, true, 1)).toBe(0);
  });

  test("only for a plain payload from 48 MiB, with a 1 GiB memory budget", () => {
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD, false)).toBe(true);
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD, true)).toBe(false);
    expect(usePieceThreads(PIECES_MIN_BUDGET - 1, PIECES_MIN_PAYLOAD, false)).toBe(false);
    expect(usePieceThreads(PIECES_MIN_BUDGET, PIECES_MIN_PAYLOAD - 1, false)).toBe(false);
  });
});
