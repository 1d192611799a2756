/**
 * IpcScratch writes the stream tableToIPC writes, byte for byte, into one buffer it keeps, and
 * lets go of a buffer grown past what it keeps (a view of it handed out stays as it was).
 */
import { describe, expect, test } from "bun:test";
import {
  Dictionary,
  Int32,
  Table,
  Utf8,
  tableToIPC,
  vectorFromArray,
} from "apache-arrow/Arrow.dom";
import { IpcScratch } from "../../src/storage/ipc-into.ts";

function sample(rows: number, seed: number): Table {
  return new Table({
    n: vectorFromArray(Int32Array.from({ length: rows }, (_, i) => i * seed)),
    text: vectorFromArray(Array.from({ length: rows }, (_, i) => "x".repeat((i * seed) % 50))),
    // A dictionary column: the stream carries its dictionary batch before the records.
    names: vectorFromArray(
      Array.from({ length: rows }, (_, i) => (i % 5 === 0 ? null : `name-${(i * seed) % 37}`)),
      new Dictionary(new Utf8(), new Int32()),
    ),
  });
}

describe("IpcScratch", () => {
  test("writes tableToIPC's stream, byte for byte, growing and shrinking", () => {
    const scratch = new IpcScratch();
    for (const [rows, seed] of [
      [0, 1],
      [1, 3],
      [5000, 7],
      [20, 11],
      [60000, 13],
      [3, 17],
    ] as const) {
      const table = sample(rows, seed);
      expect(
        Buffer.from(scratch.write(table)).equals(Buffer.from(tableToIPC(table, "stream"))),
      ).toBe(true);
    }
  });

  test("one buffer serves every table up to what it keeps", () => {
    const scratch = new IpcScratch();
    const first = scratch.write(sample(4000, 3));
    const second = scratch.write(sample(100, 5));
    expect(second.buffer).toBe(first.buffer);
  });

  test("a buffer grown past what it keeps is let go: its view stays the table's stream", () => {
    const scratch = new IpcScratch(64 << 10);
    const big = sample(30000, 7);
    const bigStream = scratch.write(big);
    expect(bigStream.buffer.byteLength).toBeGreaterThan(64 << 10);
    scratch.write(sample(10, 3));
    expect(Buffer.from(bigStream).equals(Buffer.from(tableToIPC(big, "stream")))).toBe(true);
  });
});
