/**
 * Large results on a slow pipe: the CLI must write every byte exactly once, whether the
 * reader keeps up or not. (Bun.write on a pipe that filled up rewrote the text from its
 * start after a short write, so a late reader got the first 64 KiB twice.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cli, REPO, tempWorkspace } from "../helpers.ts";
import { writeWideCpuProfile } from "../mcp/mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let runId: string;

beforeAll(async () => {
  ws = await tempWorkspace();
  writeWideCpuProfile(join(ws.root, "wide.cpuprofile"), 400);
  const imported = await cli(["import", "wide.cpuprofile", "--json"], { cwd: ws.root });
  expect(imported.code).toBe(0);
  runId = imported.json.run_id;
}, 60_000);
afterAll(() => ws.cleanup());

describe("CLI stdout", () => {
  test("a result of hundreds of KiB reaches a reader that starts late, whole and " +
    "once", async () => {
    const argv = [
      process.execPath,
      join(REPO, "src", "cli", "main.ts"),
      "analyze",
      "hotspots",
      runId,
      "--limit",
      "400",
      "--json",
    ];
    const env = { ...process.env, NO_COLOR: "1" };
    // Reference: the same result written to a file, where writes are never short.
    const toFile = join(ws.root, "hotspots.json");
    const fileRun = Bun.spawn(argv, {
      cwd: ws.root,
      env,
      stdout: Bun.file(toFile),
      stderr: "pipe",
    });
    expect(await fileRun.exited).toBe(0);
    const reference = readFileSync(toFile, "utf8");
    expect(reference.length).toBeGreaterThan(128 * 1024);

    // A shell pipeline gives a real 64 KiB pipe whose reader starts a second late, so the
    // writer meets a full pipe; pipefail keeps the CLI's exit status.
    const script = 'set -o pipefail; "$@" | { sleep 1; cat; }';
    const piped = Bun.spawn(["bash", "-c", script, "flameox", ...argv], {
      cwd: ws.root,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const text = await new Response(piped.stdout).text();
    expect(await piped.exited).toBe(0);
    expect(text.length).toBe(reference.length);
    expect(text).toBe(reference);
  }, 60_000);
});
