import { describe, expect, test } from "bun:test";
import { MemoryGovernor } from "../../workers/memory-governor.ts";

const MiB = 1 << 20;

/**
 * A governor over a scripted RSS: `rss` is what the next read returns; a collection drops it to
 * `afterCollect`.
 */
function scripted(budget: number) {
  const state = { rss: 0, afterCollect: 0, collected: 0 };
  const governor = new MemoryGovernor(
    budget,
    () => state.rss,
    () => {
      state.collected++;
      state.rss = state.afterCollect;
    },
  );
  return { governor, state };
}

describe("MemoryGovernor", () => {
  test("the target is half a small budget, and at most 352 MiB of a large one", () => {
    expect(
      new MemoryGovernor(
        512 * MiB,
        () => 0,
        () => {},
      ).target,
    ).toBe(Math.floor(512 * MiB * 0.5));
    expect(
      new MemoryGovernor(
        8 * 1024 * MiB,
        () => 0,
        () => {},
      ).target,
    ).toBe(352 * MiB);
  });

  test("collects only once RSS reaches the target", () => {
    const { governor, state } = scripted(512 * MiB);
    state.afterCollect = 100 * MiB;
    for (const rss of [50, 150, 200, 250]) {
      state.rss = rss * MiB;
      governor.checkpoint();
    }
    expect(state.collected).toBe(0);
    state.rss = governor.target;
    governor.checkpoint();
    expect(state.collected).toBe(1);
    expect(governor.collections).toBe(1);
    // Back under the target: no collection until it is reached again.
    state.rss = governor.target - 1;
    governor.checkpoint();
    expect(state.collected).toBe(1);
  });

  test(
    "a live set above the target is collected every 32 MiB of growth, not at every " + "checkpoint",
    () => {
      const { governor, state } = scripted(512 * MiB);
      state.afterCollect = 400 * MiB; // the live data alone is over the 256 MiB target
      state.rss = 410 * MiB;
      governor.checkpoint();
      expect(state.collected).toBe(1);
      for (let rss = 401; rss < 432; rss++) {
        state.rss = rss * MiB;
        governor.checkpoint();
      }
      expect(state.collected).toBe(1);
      state.rss = 432 * MiB;
      governor.checkpoint();
      expect(state.collected).toBe(2);
    },
  );

  test("when the live set shrinks again, the ceiling returns to the target", () => {
    const { governor, state } = scripted(512 * MiB);
    state.afterCollect = 400 * MiB;
    state.rss = 420 * MiB;
    governor.checkpoint();
    state.afterCollect = 100 * MiB;
    state.rss = 432 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(2);
    state.rss = governor.target;
    governor.checkpoint();
    expect(state.collected).toBe(3);
  });
});
