/** IntPairMap against a JS Map keyed by the pair, through growth and collisions. */
import { expect, test } from "bun:test";
import { IntPairMap } from "../../src/adapters/common/int-pair-map.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";

test("stores and finds every pair as a Map does, across growth", () => {
  const random = mulberry32(7);
  const map = new IntPairMap(4);
  const reference = new Map<string, number>();
  for (let k = 0; k < 50_000; k++) {
    // Small ranges make repeats and neighbouring keys; a few large values test the hash's range.
    const a = random() < 0.01 ? Math.floor(random() * 0x7fffffff) : Math.floor(random() * 300);
    const b = Math.floor(random() * 500);
    const key = `${a},${b}`;
    const found = map.get(a, b);
    expect(found).toBe(reference.get(key) ?? -1);
    if (found < 0) {
      map.set(a, b, reference.size);
      reference.set(key, reference.size);
    }
  }
  expect(map.size).toBe(reference.size);
  for (const [key, value] of reference) {
    const [a, b] = key.split(",").map(Number);
    expect(map.get(a!, b!)).toBe(value);
  }
  // A pair never stored.
  expect(map.get(1_000_000, 7)).toBe(-1);
});

test("the smallest and largest first keys are found; one out of range is refused", () => {
  const map = new IntPairMap(2);
  map.set(0, 0, 11);
  map.set(0x7ffffffe, 0, 12);
  map.set(0, -5, 13);
  expect(map.get(0, 0)).toBe(11);
  expect(map.get(0x7ffffffe, 0)).toBe(12);
  expect(map.get(0, -5)).toBe(13);
  // A fresh table's zeroed slots are empty, not the pair (0, 0) or (-1, 0).
  expect(new IntPairMap().get(0, 0)).toBe(-1);
  expect(() => map.set(-1, 0, 1)).toThrow(RangeError);
  expect(() => map.set(0x7fffffff, 0, 1)).toThrow(RangeError);
});
