/**
 * A publish that finds the write lock held after parsing keeps its staged parts and
 * retries within its budget (PUBLISH_ATTEMPTS waits of storage.write_lock_timeout_ms);
 * past the budget it closes its run as WRITE_LOCK_TIMEOUT. It never leaves a run open.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, REPO, cli, tempWorkspace } from "../helpers.ts";

const LOCK_WAIT_MS = 400;

/**
 * Starts an import, and holds the write lock from the moment its artifact is registered and its
 * parse worker told so (the landed file) until `holdMs` after the worker answered.
 */
async function importAgainstHeldLock(root: string, holdMs: number) {
  const child = Bun.spawn(
    [
      process.execPath,
      join(REPO, "src", "cli", "main.ts"),
      "import",
      join(SAMPLES, "sample.cpuprofile"),
      "--json",
    ],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const staging = join(root, ".diagnostics", "staging");
  const deadline = Date.now() + 30_000;
  while (
    Date.now() < deadline &&
    !readdirSync(staging).some((op) => existsSync(join(staging, op, "landed.json")))
  )
    await Bun.sleep(5);
  const holder = new Database(join(root, ".diagnostics", "control.sqlite"));
  holder.exec("PRAGMA busy_timeout = 10000");
  holder.exec("BEGIN IMMEDIATE");
  // Nothing between the request and the publication needs the lock; hold it from the parse's end.
  while (
    Date.now() < deadline &&
    !readdirSync(staging).some((op) => existsSync(join(staging, op, "out", "response.json")))
  )
    await Bun.sleep(5);
  await Bun.sleep(holdMs);
  holder.exec("COMMIT");
  holder.close();
  const stdout = await new Response(child.stdout).text();
  await child.exited;
  return { code: child.exitCode, json: JSON.parse(stdout) };
}

async function workspaceWithShortLockWait() {
  const ws = await tempWorkspace();
  const config = join(ws.root, ".diagnostics", "config.toml");
  const text = await Bun.file(config).text();
  await Bun.write(
    config,
    text.replace(/write_lock_timeout_ms = \d+/, `write_lock_timeout_ms = ${LOCK_WAIT_MS}`),
  );
  return ws;
}

describe("publication under a held write lock", () => {
  test("retries within its budget and publishes", async () => {
    const { root, cleanup } = await workspaceWithShortLockWait();
    try {
      // Held across the first wait, released before the budget (3 waits) runs out.
      const result = await importAgainstHeldLock(root, LOCK_WAIT_MS * 1.6);
      expect(result.code).toBe(0);
      expect(result.json.extraction.status).toBe("published");
      expect(result.json.extraction.publish_attempts).toBeGreaterThan(1);
      expect((await cli(["validate", "--json"], { cwd: root })).json.ok).toBe(true);
    } finally {
      cleanup();
    }
  }, 60_000);

  test("past its budget closes the run as WRITE_LOCK_TIMEOUT without a quarantine " +
    "record", async () => {
    const { root, cleanup } = await workspaceWithShortLockWait();
    try {
      const result = await importAgainstHeldLock(root, LOCK_WAIT_MS * 4);
      expect(result.code).toBe(7);
      expect(result.json.error.code).toBe("WRITE_LOCK_TIMEOUT");
      const run = (await cli(["runs", "show", result.json.error.run_id, "--json"], { cwd: root }))
        .json;
      expect(run.extraction_status).toBe("failed");
      expect(run.error.code).toBe("WRITE_LOCK_TIMEOUT");
      expect(readdirSync(join(root, ".diagnostics", "quarantine"))).toEqual([]);
      expect(readdirSync(join(root, ".diagnostics", "staging"))).toEqual([]);
      const validation = (await cli(["validate", "--json"], { cwd: root })).json;
      expect(validation.checks.filter((c: any) => c.status !== "passed")).toEqual([]);
    } finally {
      cleanup();
    }
  }, 60_000);
});
