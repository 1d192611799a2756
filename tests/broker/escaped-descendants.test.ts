/**
 * trusted_local has no PID namespace: a workload can double-fork and setsid a daemon
 * before any sample sees it, leaving both its process group and its session. flameox is
 * a child subreaper, so the orphan comes back to it and is killed at cleanup; anything
 * still alive afterwards is counted as having got away.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../src/broker/process-broker.ts";
import { tempDir } from "../helpers.ts";

let dir: ReturnType<typeof tempDir>;
let escaped: number | null = null;
beforeEach(() => {
  dir = tempDir("flameox-escape-");
  escaped = null;
});
afterEach(() => {
  if (escaped !== null) {
    try {
      process.kill(escaped, "SIGKILL");
    } catch {
      // Already gone: the expected case.
    }
  }
  dir.cleanup();
});

const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
};

test(
  "a double-forked, setsid'd daemon the sampler never saw is adopted and killed when the " +
    "leader exits",
  async () => {
    const pidFile = join(dir.path, "daemon.pid");
    const script =
      `( setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & ); while [ ! -s ${pidFile} ]; do ` +
      `sleep 0.01; done`;
    const result = await runProcess({
      argv: ["/bin/sh", "-c", script],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      deadlineAt: Date.now() + 10_000,
      graceMs: 200,
      maxOutputBytes: 4096,
      // No sample is taken before the leader exits: only adoption can find the daemon.
      sampling: { intervalMs: 5000 },
    });
    expect(existsSync(pidFile)).toBe(true);
    escaped = Number(readFileSync(pidFile, "utf8").trim());
    expect(result.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(result.descendantTracking).toBe("subreaper");
    expect(result.escapedDescendantsKilled).toBeGreaterThanOrEqual(1);
    expect(result.escapedDescendantsSurvived).toBe(0);
    expect(alive(escaped)).toBe(false);
  },
);

test(
  "concurrent captures in one process: a daemon one run leaves is killed and counted by that " +
    "run, never by another",
  async () => {
    const pidFile = join(dir.path, "b-daemon.pid");
    const started = Date.now();
    // A: a plain run that ends while B's daemon lives. B: double-forks a daemon, then outlives A.
    const a = runProcess({
      argv: ["/bin/sh", "-c", "sleep 0.4"],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      deadlineAt: started + 10_000,
      graceMs: 200,
      maxOutputBytes: 4096,
      sampling: { intervalMs: 5000 },
    });
    await Bun.sleep(100);
    const b = runProcess({
      argv: [
        "/bin/sh",
        "-c",
        `( setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & ); while [ ! -s ${pidFile} ]; ` +
          `do sleep 0.01; done; sleep 0.8`,
      ],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      deadlineAt: Date.now() + 10_000,
      graceMs: 200,
      maxOutputBytes: 4096,
      sampling: { intervalMs: 5000 },
    });
    const [ra, rb] = await Promise.all([a, b]);
    escaped = Number(readFileSync(pidFile, "utf8").trim());
    expect(ra.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(rb.termination).toEqual({ kind: "exited", exitCode: 0 });
    expect(ra.escapedDescendantsKilled).toBe(0);
    expect(ra.signalsSent.filter((s) => s.target === "descendant")).toEqual([]);
    expect(rb.escapedDescendantsKilled).toBeGreaterThanOrEqual(1);
    expect(rb.escapedDescendantsSurvived).toBe(0);
    expect(alive(escaped)).toBe(false);
  },
);

test(
  "an orphan adopted outside any capture that then dies is reaped by the next run of any kind, " +
    "not left a zombie",
  async () => {
    const quick = {
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin" },
      graceMs: 200,
      maxOutputBytes: 4096,
    };
    // A capture makes flameox a subreaper; then an unsampled run (a probe, a post step) leaves a
    // short-lived daemon.
    await runProcess({
      ...quick,
      argv: ["/bin/true"],
      deadlineAt: Date.now() + 10_000,
      sampling: { intervalMs: 5000 },
    });
    const pidFile = join(dir.path, "short.pid");
    await runProcess({
      ...quick,
      argv: [
        "/bin/sh",
        "-c",
        `( setsid sh -c 'echo $$ > ${pidFile}; exec sleep 0.3' </dev/null >/dev/null 2>&1 & ); ` +
          `while [ ! -s ${pidFile} ]; do sleep 0.01; done`,
      ],
      deadlineAt: Date.now() + 10_000,
    });
    const orphan = Number(readFileSync(pidFile, "utf8").trim());
    const stat = () =>
      existsSync(`/proc/${orphan}/stat`)
        ? readFileSync(`/proc/${orphan}/stat`, "latin1").split(") ")[1]!.split(" ")
        : null;
    for (let i = 0; i < 200 && stat()?.[0] !== "Z"; i++) await Bun.sleep(10);
    // Adopted by flameox and dead: a zombie only flameox can collect.
    expect(stat()?.slice(0, 2)).toEqual(["Z", String(process.pid)]);
    await runProcess({ ...quick, argv: ["/bin/true"], deadlineAt: Date.now() + 10_000 });
    expect(stat()).toBeNull();
  },
);
