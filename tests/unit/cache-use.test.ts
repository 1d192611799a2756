/**
 * CacheUse (src/adapters/common/cache-use.ts): a cache that rarely hits stops being consulted
 * for a while, then is tried again; one that hits keeps being consulted.
 */
import { describe, expect, test } from "bun:test";
import { CacheUse } from "../../src/adapters/common/cache-use.ts";

function consulted(use: CacheUse, lookups: number, hitEvery: number): number {
  let looked = 0;
  for (let i = 0; i < lookups; i++) {
    if (!use.look()) continue;
    looked++;
    if (i % hitEvery === 0) use.hit();
  }
  return looked;
}

describe("cache use", () => {
  test("a cache that hits is always consulted", () => {
    const use = new CacheUse();
    expect(consulted(use, 1 << 20, 2)).toBe(1 << 20);
    expect(use.totalHits).toBe(1 << 19);
  });

  test("a cache that rarely hits rests, then is tried again", () => {
    const use = new CacheUse();
    // 16Ki lookups without a hit, then 256Ki resting, then tried again for 16Ki.
    const looked = consulted(use, (1 << 14) + (1 << 18) + (1 << 14), 1 << 30);
    expect(looked).toBeLessThan(3 * (1 << 14));
    expect(looked).toBeGreaterThanOrEqual(2 * (1 << 14) - 1);
  });
});
