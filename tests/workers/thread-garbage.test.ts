import { describe, expect, test } from "bun:test";
import { ThreadGarbage } from "../../workers/thread-garbage.ts";

const MiB = 1 << 20;

describe("ThreadGarbage", () => {
  test("collects once the tasks since the last collection have handled the allowance", () => {
    let collected = 0;
    const garbage = new ThreadGarbage(() => collected++, 16 * MiB);
    garbage.settle(8 * MiB);
    expect(collected).toBe(0);
    garbage.settle(8 * MiB);
    expect(collected).toBe(1);
    // Small parts (the last of a table, small tables) add up the same way.
    for (let i = 0; i < 15; i++) garbage.settle(MiB);
    expect(collected).toBe(1);
    garbage.settle(MiB);
    expect(collected).toBe(2);
    // A part larger than the allowance is collected after at once.
    garbage.settle(40 * MiB);
    expect(garbage.collections).toBe(3);
  });
});
