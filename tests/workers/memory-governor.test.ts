import { describe, expect, test } from "bun:test";
import { MemoryGovernor } from "../../workers/memory-governor.ts";

const MiB = 1 << 20;

/**
 * A governor over a scripted RSS and clock: `rss` is what the next read returns; a collection drops
 * it to `afterCollect`; each checkpoint comes `tick` ms after the last (by default long enough for
 * every checkpoint to read RSS).
 */
function scripted(budget: number, tick = 10) {
  const state = { rss: 0, afterCollect: 0, collected: 0, reads: 0, now: 0, tick };
  const governor = new MemoryGovernor(
    budget,
    () => {
      state.reads++;
      return state.rss;
    },
    () => {
      state.collected++;
      state.rss = state.afterCollect;
    },
    () => state.now,
  );
  const checkpoint = governor.checkpoint.bind(governor);
  governor.checkpoint = () => {
    state.now += state.tick;
    checkpoint();
  };
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

  test("far below the ceiling RSS is read every 5 ms; closer, as soon as it could have reached it", () => {
    const { governor, state } = scripted(512 * MiB, 0.25);
    state.afterCollect = 100 * MiB;
    state.rss = 100 * MiB; // 156 MiB below the 256 MiB target
    for (let i = 0; i < 40; i++) governor.checkpoint(); // 10 ms of checkpoints
    expect(state.reads).toBe(2);
    // 16 MiB below the target: growing 48 MiB in 5 ms it could reach it in ~1.7 ms, so it is read
    // every seventh checkpoint (1.75 ms), not every one.
    state.rss = 240 * MiB;
    for (let i = 0; i < 20; i++) governor.checkpoint(); // past the last 5 ms wait
    let before = state.reads;
    for (let i = 0; i < 70; i++) governor.checkpoint(); // 17.5 ms
    expect(state.reads - before).toBe(10);
    // 2 MiB below: at every checkpoint.
    state.rss = 254 * MiB;
    for (let i = 0; i < 7; i++) governor.checkpoint();
    before = state.reads;
    for (let i = 0; i < 10; i++) governor.checkpoint();
    expect(state.reads).toBe(before + 10);
    expect(state.collected).toBe(0);
    // Reaching the target collects at that very checkpoint.
    state.rss = governor.target;
    governor.checkpoint();
    expect(state.collected).toBe(1);
    // Back far below: reads are spaced again.
    before = state.reads;
    for (let i = 0; i < 40; i++) governor.checkpoint();
    expect(state.reads - before).toBeLessThanOrEqual(3);
  });

  test("near 448 MiB a live set's garbage may grow less than 32 MiB, and at least 8 MiB", () => {
    const { governor, state } = scripted(8 * 1024 * MiB);
    state.afterCollect = 430 * MiB;
    state.rss = 440 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(1);
    // 430 + 32 would pass 448: the ceiling is 448.
    state.rss = 447 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(1);
    state.afterCollect = 445 * MiB;
    state.rss = 448 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(2);
    // 445 left: 8 MiB more, not 32.
    state.rss = 452 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(2);
    state.rss = 453 * MiB;
    governor.checkpoint();
    expect(state.collected).toBe(3);
  });

  test("release collects where a pass ended, unless RSS is under half the target", () => {
    const { governor, state } = scripted(8 * 1024 * MiB);
    state.rss = 170 * MiB;
    governor.release();
    expect(state.collected).toBe(0);
    state.afterCollect = 200 * MiB;
    state.rss = 300 * MiB;
    governor.release();
    expect(state.collected).toBe(1);
  });
});
