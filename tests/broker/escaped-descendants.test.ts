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

test("a double-forked, setsid'd daemon the sampler never saw is adopted and killed when the leader exits", async () => {
  const pidFile = join(dir.path, "daemon.pid");
  const script = `( setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & ); while [ ! -s ${pidFile} ]; do sleep 0.01; done`;
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
});
