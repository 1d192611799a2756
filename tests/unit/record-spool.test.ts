/**
 * RecordSpool: records of any size come back in order, whether they stayed in memory,
 * were spilled in many runs, or are larger than the memory budget and the read block.
 */
import { describe, expect, test } from "bun:test";
import { RecordSpool } from "../../src/adapters/common/record-spool.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";

function roundTrip(spool: RecordSpool, lengths: number[]): void {
  lengths.forEach((n, r) => {
    spool.begin(12 + 4 * n);
    spool.f64(r + 0.5);
    spool.i32(n);
    for (let k = 0; k < n; k++) spool.i32(r * 7 + k);
  });
  const reader = spool.reader();
  lengths.forEach((n, r) => {
    reader.need(12);
    expect(reader.f64()).toBe(r + 0.5);
    expect(reader.i32()).toBe(n);
    reader.need(4 * n);
    for (let k = 0; k < n; k++) if (reader.i32() !== r * 7 + k) throw new Error(`record ${r}`);
  });
  expect(() => reader.need(4)).toThrow("past the last record");
}

// Short records, then one of 2 MiB (beyond the budget and the 1 MiB read block), then short ones.
const lengths = [
  ...Array.from({ length: 3000 }, (_, i) => i % 17),
  512 * 1024,
  ...Array.from({ length: 50 }, (_, i) => i),
];

describe("RecordSpool", () => {
  test("in memory (no scratch space)", () => roundTrip(new RecordSpool(undefined), lengths));

  test("spilled in many runs past a small budget, then read back across runs and the tail", () => {
    let appends = 0;
    const space = new MemorySpillSpace();
    const spool = new RecordSpool(
      {
        create() {
          const file = space.create();
          const append = file.append.bind(file);
          file.append = (bytes) => {
            appends++;
            append(bytes);
          };
          return file;
        },
      },
      1000,
    );
    roundTrip(spool, lengths);
    expect(appends).toBeGreaterThan(50);
    expect(spool.spilledBytes).toBeGreaterThan(2 << 20);
    spool.dispose();
    expect(spool.spilledBytes).toBe(0);
  });
});
