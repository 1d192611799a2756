/**
 * The broker under capture conditions: a grandchild that ignores SIGTERM is gone after the
 * deadline and the signals are recorded; a descendant that escapes the group and session
 * is found and killed; output streams to a file under a cap; the process tree is sampled
 * and unavailable metrics are named, never zero-filled.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../src/broker/process-broker.ts";
import { REPO, tempDir } from "../helpers.ts";

const WORKLOADS = join(REPO, "fixtures", "workloads");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
let dir: { path: string; cleanup: () => void };
beforeAll(() => (dir = tempDir("flameox-broker-")));
afterAll(() => dir.cleanup());

/** Alive and not a zombie (a container's PID 1 may never reap). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** SIGKILL is asynchronous: give the kernel a moment to take the process down. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await Bun.sleep(20);
  }
  return true;
}

describe("capture broker", () => {
  test(
    "a grandchild ignoring SIGTERM is killed after the grace; the timeout and both signals are " +
      "recorded",
    async () => {
      const result = await runProcess({
        argv: ["/bin/sh", join(WORKLOADS, "ignore-term.sh")],
        cwd: dir.path,
        env,
        // Long enough for the shell to start its grandchild even on a loaded machine.
        deadlineAt: Date.now() + 2000,
        graceMs: 300,
        maxOutputBytes: 4096,
        sampling: { intervalMs: 50 },
      });
      expect(result.termination).toEqual({ kind: "timeout" });
      const signals = result.signalsSent.map((s) => `${s.signal}:${s.target}:${s.reason}`);
      expect(signals.slice(0, 2)).toEqual(["SIGTERM:group:timeout", "SIGKILL:group:timeout"]);
      // A descendant the subreaper adopted while the group was being killed gets its own
      // SIGKILL; whether that happens depends on timing (a loaded machine), never on anything else.
      expect(signals.slice(2).every((s) => s === "SIGKILL:descendant:timeout")).toBe(true);
      expect(result.signalsSent[1]!.at_ms - result.signalsSent[0]!.at_ms).toBeGreaterThanOrEqual(
        250,
      );
      const grandchild = Number(/grandchild (\d+)/.exec(result.stdout)![1]);
      expect(await goneWithin(grandchild, 2000)).toBe(true);
    },
  );

  test(
    "a descendant that left the group and session is observed and killed at " + "cleanup",
    async () => {
      const result = await runProcess({
        argv: ["/bin/sh", join(WORKLOADS, "escape.sh")],
        cwd: dir.path,
        env,
        deadlineAt: Date.now() + 700,
        graceMs: 200,
        maxOutputBytes: 4096,
        sampling: { intervalMs: 50 },
      });
      expect(result.termination.kind).toBe("timeout");
      const escaped = Number(/escaped (\d+)/.exec(result.stdout)![1]);
      expect(result.escapedDescendantsKilled).toBeGreaterThanOrEqual(1);
      expect(result.signalsSent.some((s) => s.target === "descendant")).toBe(true);
      expect(alive(escaped)).toBe(false);
    },
  );

  test(
    "stdout streams to a file under the cap; the kept bytes are hashed and the truncation " +
      "flagged",
    async () => {
      const path = join(dir.path, "out");
      const result = await runProcess({
        argv: ["/usr/bin/head", "-c", "100000", "/dev/urandom"],
        cwd: dir.path,
        env,
        deadlineAt: Date.now() + 10_000,
        maxOutputBytes: 4096,
        stdout: { kind: "file", path },
      });
      const sink = result.output.stdout;
      expect(sink).toMatchObject({
        keptBytes: 4096,
        seenBytes: 100_000,
        truncated: true,
        complete: true,
        path,
      });
      const kept = readFileSync(path);
      expect(kept.length).toBe(4096);
      expect(new Bun.CryptoHasher("sha256").update(kept).digest("hex")).toBe(sink.sha256Hex);
    },
  );

  test(
    "the leader's peak is its own, not the spawning process's (which Linux folds into " +
      "ru_maxrss)",
    async () => {
      const ballast = new Uint8Array(512 * 1024 * 1024).fill(1);
      const result = await runProcess({
        argv: ["/bin/sleep", "0.3"],
        cwd: dir.path,
        env,
        deadlineAt: Date.now() + 10_000,
        maxOutputBytes: 64,
        sampling: { intervalMs: 25 },
      });
      expect(ballast[ballast.length - 1]).toBe(1);
      expect(result.maxRssBytes!).toBeGreaterThan(400 * 1024 * 1024);
      expect(result.resources!.leader_hwm_bytes!).toBeGreaterThan(0);
      expect(result.resources!.leader_hwm_bytes!).toBeLessThan(64 * 1024 * 1024);
    },
  );

  test(
    "sampling sees the tree's RSS and free bytes; a metric that was not sampled is named, not " +
      "zero",
    async () => {
      const result = await runProcess({
        argv: [process.execPath, join(WORKLOADS, "allocate.js"), "48"],
        cwd: dir.path,
        env,
        deadlineAt: Date.now() + 20_000,
        maxOutputBytes: 4096,
        sampling: { intervalMs: 25, freeBytesPath: dir.path },
      });
      expect(result.termination).toEqual({ kind: "exited", exitCode: 0 });
      const r = result.resources!;
      expect(r.samples).toBeGreaterThan(2);
      expect(r.peak_rss_bytes!).toBeGreaterThan(48 * 1024 * 1024);
      expect(r.minimum_free_bytes!).toBeGreaterThan(0);
      expect(r.unavailable_metrics).toEqual([]);
      const bare = await runProcess({
        argv: ["/bin/true"],
        cwd: dir.path,
        env,
        deadlineAt: Date.now() + 5000,
        maxOutputBytes: 64,
        sampling: { intervalMs: 1000 },
      });
      expect(bare.resources!.minimum_free_bytes).toBeNull();
      expect(bare.resources!.unavailable_metrics.map((m) => m.metric)).toContain(
        "minimum_free_bytes",
      );
    },
  );

  test("a tree over its RSS policy is stopped as a policy termination", async () => {
    const result = await runProcess({
      argv: [process.execPath, join(WORKLOADS, "allocate.js"), "96"],
      cwd: dir.path,
      env,
      deadlineAt: Date.now() + 20_000,
      graceMs: 200,
      maxOutputBytes: 4096,
      sampling: { intervalMs: 25, maxTreeRssBytes: 64 * 1024 * 1024 },
    });
    expect(result.termination).toMatchObject({
      kind: "policy",
      metric: "peak_rss_bytes",
      limit: 64 * 1024 * 1024,
    });
    expect(result.signalsSent[0]).toMatchObject({
      signal: "SIGTERM",
      target: "group",
      reason: "policy",
    });
  });
});
