import { describe, expect, test } from "bun:test";
import { ThreadGarbage } from "../../workers/thread-garbage.ts";

const MiB = 1 << 20;

describe("ThreadGarbage", () => {
  test("collects at the first task, then once the heap outgrows what the last collection left", () => {
    const state = { heap: 100 * MiB, afterCollect: 90 * MiB };
    const garbage = new ThreadGarbage(
      () => state.heap,
      () => {
        state.heap = state.afterCollect;
      },
      32 * MiB,
    );
    garbage.settle();
    expect(garbage.collections).toBe(1);
    // 90 MiB live: nothing until 122 MiB.
    for (const heap of [95, 110, 121]) {
      state.heap = heap * MiB;
      garbage.settle();
    }
    expect(garbage.collections).toBe(1);
    state.heap = 122 * MiB;
    garbage.settle();
    expect(garbage.collections).toBe(2);
    // The live set shrank: the next threshold follows it down.
    state.afterCollect = 40 * MiB;
    state.heap = 160 * MiB;
    garbage.settle();
    expect(garbage.collections).toBe(3);
    state.heap = 72 * MiB;
    garbage.settle();
    expect(garbage.collections).toBe(4);
  });

  test("the default reads this thread's heap: garbage past the allowance is collected", () => {
    const garbage = new ThreadGarbage(undefined, undefined, 8 * MiB);
    garbage.settle();
    // Right after a collection the heap is within the allowance.
    garbage.settle();
    expect(garbage.collections).toBe(1);
    // 16 MiB of buffers, held together and then dropped: the heap has outgrown the allowance.
    let held: Uint8Array[] | null = Array.from({ length: 16 }, () => new Uint8Array(MiB).fill(1));
    expect(held).toHaveLength(16);
    held = null;
    garbage.settle();
    expect(garbage.collections).toBe(2);
  });
});
