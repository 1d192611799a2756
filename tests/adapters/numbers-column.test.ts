/**
 * A cpuprofile's sample columns: sized ahead from the payload's size (so a 2M-sample profile is
 * not copied into fresh memory at every doubling), they hold what was pushed whatever their
 * initial size, and an element that was not a number still reads back as itself.
 */
import { describe, expect, test } from "bun:test";
import { expectedSamples, NumbersColumn } from "../../src/adapters/v8-cpuprofile/numbers-column.ts";

describe("cpuprofile sample columns", () => {
  test("expect a sample per 8 payload bytes, within bounds", () => {
    expect(expectedSamples(undefined)).toBe(1024);
    expect(expectedSamples(0)).toBe(1024);
    expect(expectedSamples(19_848_758)).toBe(2_481_095);
    // A huge payload is not allocated for ahead: past 2^23 elements the column grows.
    expect(expectedSamples(2 ** 40)).toBe(2 ** 23);
  });

  test("the same elements whatever the initial size, past it or short of it", () => {
    const runs = [
      new Float64Array([1, 2, 3]),
      new Float64Array(5000).map((_, i) => i),
      new Float64Array([Number.NaN, 7]),
    ];
    const read = (capacity: number) => {
      const column = new NumbersColumn(capacity);
      for (const run of runs) column.pushRun(run);
      column.pushOther("x");
      return { length: column.length, items: Array.from(column.items()) };
    };
    const small = read(1);
    expect(small.length).toBe(5005);
    expect(small.items.slice(0, 4)).toEqual([1, 2, 3, 0]);
    expect(small.items.slice(-2)).toEqual(["x", 7]);
    expect(read(expectedSamples(1 << 20))).toEqual(small);
    expect(read(0)).toEqual(small);
  });
});
