/**
 * Plan tokens: 256-bit, single use, expiring, capacity-bounded, and each refusal says which case it
 * is.
 */
import { describe, expect, test } from "bun:test";
import { PlanRegistry } from "../../src/broker/plan-registry.ts";

function clocked(options: { ttlMs?: number; capacity?: number } = {}) {
  let now = 0;
  const registry = new PlanRegistry<string>({ ...options, now: () => now });
  return { registry, advance: (ms: number) => (now += ms) };
}

describe("plan registry", () => {
  test("tokens are 64 hex characters (256 bits) from a CSPRNG and never repeat", () => {
    const { registry } = clocked();
    const ids = new Set(Array.from({ length: 200 }, (_, i) => registry.issue(`p${i}`).plan_id));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a plan is consumed once; a replay is PLAN_CONSUMED", () => {
    const { registry } = clocked();
    const { plan_id } = registry.issue("plan");
    expect(registry.consume(plan_id)).toBe("plan");
    expect(() => registry.consume(plan_id)).toThrow(
      expect.objectContaining({ code: "PLAN_CONSUMED" }),
    );
  });

  test("an expired plan is PLAN_EXPIRED, before and after the sweep", () => {
    const { registry, advance } = clocked({ ttlMs: 1000 });
    const a = registry.issue("a").plan_id;
    const b = registry.issue("b").plan_id;
    advance(1000);
    expect(() => registry.consume(a)).toThrow(expect.objectContaining({ code: "PLAN_EXPIRED" }));
    registry.issue("c"); // sweeps b
    expect(() => registry.consume(b)).toThrow(expect.objectContaining({ code: "PLAN_EXPIRED" }));
  });

  test("a token from another process, or malformed, is INVALID_CAPTURE_PLAN", () => {
    const { registry } = clocked();
    const foreign = new PlanRegistry<string>().issue("elsewhere").plan_id;
    expect(() => registry.consume(foreign)).toThrow(
      expect.objectContaining({ code: "INVALID_CAPTURE_PLAN" }),
    );
    expect(() => registry.consume("rm -rf /")).toThrow(
      expect.objectContaining({ code: "INVALID_CAPTURE_PLAN" }),
    );
  });

  test("capacity evicts the plan expiring soonest, which then reads as expired", () => {
    const { registry, advance } = clocked({ capacity: 2, ttlMs: 10_000 });
    const first = registry.issue("1").plan_id;
    advance(10);
    const second = registry.issue("2").plan_id;
    registry.issue("3");
    expect(registry.size).toBe(2);
    expect(() => registry.consume(first)).toThrow(
      expect.objectContaining({
        code: "PLAN_EXPIRED",
        message: expect.stringContaining("evicted"),
      }),
    );
    expect(registry.consume(second)).toBe("2");
  });
});
