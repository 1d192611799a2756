/**
 * Capture plans held in this process's memory behind opaque 256-bit tokens. A token is
 * single use and expires (monotonic clock); the registry is capacity-bounded and evicts
 * the plan expiring soonest. Consumption removes the plan before the caller can start
 * anything, so a token can never run twice. A bounded memory of spent tokens (by hash)
 * lets a refusal say which it was: replayed, expired, or never issued here (another
 * process, or before a restart).
 */
import { createHash, randomBytes } from "node:crypto";
import { FlameoxError } from "../domain/errors.ts";

export const DEFAULT_PLAN_TTL_MS = 300_000;
export const DEFAULT_PLAN_CAPACITY = 256;
const TOKEN = /^[0-9a-f]{64}$/;

type Spent = "consumed" | "expired" | "evicted";

export interface IssuedPlan {
  plan_id: string;
  expires_at: string;
  ttl_seconds: number;
}

export interface PlanRegistryOptions {
  ttlMs?: number;
  capacity?: number;
  /** Monotonic milliseconds; injectable so expiry is testable without waiting. */
  now?: () => number;
}

export class PlanRegistry<P> {
  private readonly plans = new Map<string, { plan: P; expiresAt: number }>();
  private readonly spent = new Map<string, Spent>();
  private readonly ttlMs: number;
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(options: PlanRegistryOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_PLAN_TTL_MS;
    this.capacity = options.capacity ?? DEFAULT_PLAN_CAPACITY;
    this.now = options.now ?? (() => performance.now());
  }

  issue(plan: P): IssuedPlan {
    this.sweep();
    if (this.plans.size >= this.capacity) this.evictSoonest();
    const token = randomBytes(32).toString("hex");
    const expiresAt = this.now() + this.ttlMs;
    this.plans.set(token, { plan, expiresAt });
    return {
      plan_id: token,
      expires_at: new Date(Date.now() + this.ttlMs).toISOString(),
      ttl_seconds: Math.round(this.ttlMs / 1000),
    };
  }

  /**
   * Removes and returns the plan, or throws a typed refusal. Synchronous: nothing can interleave.
   */
  consume(token: string): P {
    if (!TOKEN.test(token))
      throw unknownPlan("it is not a flameox plan id (64 hexadecimal characters)");
    const entry = this.plans.get(token);
    if (entry) {
      this.plans.delete(token);
      if (entry.expiresAt <= this.now()) {
        this.remember(token, "expired");
        throw expired("it expired");
      }
      this.remember(token, "consumed");
      return entry.plan;
    }
    switch (this.spent.get(hashOf(token))) {
      case "consumed":
        throw new FlameoxError(
          "PLAN_CONSUMED",
          "Cannot execute the capture plan: it was already used; a plan runs at most once",
          {
            remediation: [
              "Plan the capture again (plan_capture or `flameox capture plan`) for another run",
            ],
          },
        );
      case "expired":
        throw expired("it expired");
      case "evicted":
        throw expired("it was evicted to keep the plan registry within its capacity");
      default:
        throw unknownPlan(
          "it is missing, or belongs to another flameox process (plans live in the memory of " +
            "the process that made them and end with it)",
        );
    }
  }

  get size(): number {
    return this.plans.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [token, entry] of this.plans) {
      if (entry.expiresAt <= now) {
        this.plans.delete(token);
        this.remember(token, "expired");
      }
    }
  }

  private evictSoonest(): void {
    let soonest: [string, number] | null = null;
    for (const [token, entry] of this.plans)
      if (!soonest || entry.expiresAt < soonest[1]) soonest = [token, entry.expiresAt];
    if (!soonest) return;
    this.plans.delete(soonest[0]);
    this.remember(soonest[0], "evicted");
  }

  private remember(token: string, how: Spent): void {
    this.spent.set(hashOf(token), how);
    // Bounded: the oldest memories go first (Map keeps insertion order).
    while (this.spent.size > this.capacity * 16) this.spent.delete(this.spent.keys().next().value!);
  }
}

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function expired(why: string): FlameoxError {
  return new FlameoxError("PLAN_EXPIRED", `Cannot execute the capture plan: ${why}`, {
    remediation: ["Plan the capture again and execute it within its ttl_seconds"],
  });
}

function unknownPlan(why: string): FlameoxError {
  return new FlameoxError("INVALID_CAPTURE_PLAN", `Cannot execute the capture plan: ${why}`, {
    details: { field: "plan_id" },
    remediation: [
      "Plan the capture in this same process (the MCP server, or `flameox capture run`), " +
        "then execute its plan_id",
    ],
  });
}
