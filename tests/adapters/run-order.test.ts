import { describe, expect, test } from "bun:test";
import { KIND_COMPLETE, KIND_SKIPPED } from "../../src/adapters/trace-events/event-kinds.ts";
import { runOrder } from "../../src/adapters/trace-events/run-order.ts";
import { TraceColumns } from "../../src/adapters/trace-events/trace-columns.ts";

function columns(
  starts: number[],
  tracks: number[],
  skipped: Set<number> = new Set(),
): TraceColumns {
  const cols = new TraceColumns();
  starts.forEach((start, k) => {
    const i = cols.add(k);
    cols.kind.array[i] = skipped.has(k) ? KIND_SKIPPED : KIND_COMPLETE;
    cols.track.array[i] = tracks[k]!;
    cols.startNs.array[i] = start;
  });
  return cols;
}

/** The order by definition: kept events by track, then start, then position. */
function reference(starts: number[], tracks: number[], skipped: Set<number>): number[] {
  return starts
    .map((_, i) => i)
    .filter((i) => !skipped.has(i))
    .sort((a, b) => tracks[a]! - tracks[b]! || starts[a]! - starts[b]! || a - b);
}

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("runOrder", () => {
  const cases: [string, (r: () => number, i: number) => number][] = [
    // Sorted by insertion: a few events written after later ones (a counter after its slices).
    ["almost in order", (r, i) => i * 10 - (r() < 0.05 ? Math.floor(r() * 60) : 0)],
    ["almost in order, with ties", (r, i) => Math.floor(i / 4) * 10 - (r() < 0.05 ? 10 : 0)],
    ["integer starts with many ties", (r) => Math.floor(r() * 20) * 1000],
    ["negative starts", (r) => Math.floor(r() * 2e6) - 1e6],
    // 3000 positions take 12 bits of a packed key: a span of 2^51 ns fits beside them, 2^52 not.
    ["starts spanning 2^51 ns", (r, i) => (i % 2 === 0 ? 0 : 2 ** 51) + Math.floor(r() * 100)],
    ["starts spanning 2^52 ns", (r, i) => (i % 2 === 0 ? 0 : 2 ** 52) + Math.floor(r() * 100)],
    ["fractional starts", (r) => Math.floor(r() * 50) + 0.5 * Math.floor(r() * 2)],
  ];
  for (const [name, startOf] of cases) {
    test(`orders by track, start, then position: ${name}`, () => {
      const r = random(name.length);
      const n = 3000;
      const starts = Array.from({ length: n }, (_, i) => startOf(r, i));
      const tracks = Array.from({ length: n }, () => Math.floor(r() * 3));
      const skipped = new Set(Array.from({ length: n }, (_, i) => i).filter(() => r() < 0.1));
      const order = runOrder(columns(starts, tracks, skipped));
      expect(Array.from(order)).toEqual(reference(starts, tracks, skipped));
    });
  }
});
