/**
 * import_artifact is fenced: only regular files under the project root (or the system
 * temp directory with source_root "temp"), reached without symbolic links, outside
 * `.diagnostics/`. Each refusal is a typed error naming the path field, and no refusal
 * leaves a run behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { SAMPLES, tempDir, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let outside: { path: string; cleanup: () => void };
let mcp: Connected;

beforeAll(async () => {
  ws = await tempWorkspace();
  outside = tempDir("flameox-outside-");
  mkdirSync(join(ws.root, "real"));
  copyFileSync(join(SAMPLES, "sample.cpuprofile"), join(ws.root, "real", "profile.cpuprofile"));
  copyFileSync(join(SAMPLES, "sample.cpuprofile"), join(outside.path, "profile.cpuprofile"));
  symlinkSync(join(ws.root, "real"), join(ws.root, "linked-dir"));
  symlinkSync(join(ws.root, "real", "profile.cpuprofile"), join(ws.root, "linked-file.cpuprofile"));
  symlinkSync(outside.path, join(ws.root, "escape"));
  Bun.spawnSync(["mkfifo", join(ws.root, "pipe.cpuprofile")]);
  mcp = await connect(ws.root);
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
  outside.cleanup();
});

async function refused(
  args: Record<string, unknown>,
  code: string,
  message: RegExp,
): Promise<void> {
  const answer = await call(mcp.client, "import_artifact", args);
  expect(answer.isError).toBe(true);
  expect(answer.error).toMatchObject({ code, details: { field: "path" } });
  expect(answer.error.message).toMatch(message);
  expect(answer.error.run_id).toBeUndefined();
  expect(answer.error.message).not.toContain("/proc/self/fd");
}

describe("import_artifact fence", () => {
  test("refuses a path whose directory component is a symbolic link (symlink swap)", async () => {
    await refused(
      { path: "linked-dir/profile.cpuprofile" },
      "ARTIFACT_REFUSED",
      /linked-dir is a symbolic link/,
    );
    await refused(
      { path: "escape/profile.cpuprofile" },
      "ARTIFACT_REFUSED",
      /escape is a symbolic link/,
    );
  });

  test("refuses a final symbolic link", async () => {
    await refused({ path: "linked-file.cpuprofile" }, "ARTIFACT_REFUSED", /symbolic link/);
  });

  test("refuses a FIFO without blocking", async () => {
    await refused({ path: "pipe.cpuprofile" }, "ARTIFACT_REFUSED", /FIFO/);
  });

  test("refuses an absolute path outside the project root", async () => {
    await refused(
      { path: join(outside.path, "profile.cpuprofile") },
      "ARTIFACT_REFUSED",
      /outside the project root/,
    );
  });

  test("refuses .. traversal that leaves the root, and a NUL byte", async () => {
    await refused(
      { path: `../${basename(outside.path)}/profile.cpuprofile` },
      "ARTIFACT_REFUSED",
      /outside the project root/,
    );
    await refused(
      { path: "real/../../etc/passwd" },
      "ARTIFACT_REFUSED",
      /outside the project root/,
    );
    await refused({ path: "real/profile.cpuprofile\0.txt" }, "INVALID_ARGUMENTS", /NUL/);
  });

  test("refuses the workspace's own storage and directories", async () => {
    await refused({ path: ".diagnostics/control.sqlite" }, "ARTIFACT_REFUSED", /\.diagnostics/);
    await refused({ path: "real" }, "ARTIFACT_REFUSED", /directory/);
    await refused({ path: "missing.cpuprofile" }, "INVALID_ARGUMENTS", /no such file/);
  });

  test("refusals leave no run behind", async () => {
    const runs = await call(mcp.client, "list_runs", {});
    expect(runs.result.total).toBe(0);
  });

  test("accepts in-root paths, including .. that stays inside, and temp files with source_root " +
    "temp", async () => {
    const inside = await call(mcp.client, "import_artifact", {
      path: "real/../real/profile.cpuprofile",
    });
    expect(inside.isError).toBe(false);
    const registration = (await call(mcp.client, "get_run", { run_id: inside.result.run_id }))
      .result.registrations[0];
    expect(registration.display_name).toBe("profile.cpuprofile");
    const absolute = await call(mcp.client, "import_artifact", {
      path: join(ws.root, "real", "profile.cpuprofile"),
    });
    expect(absolute.result.deduplicated).toBe(true);
    const scratch = mkdtempSync(join(tmpdir(), "flameox-temp-src-"));
    try {
      copyFileSync(join(SAMPLES, "sample-trace.json"), join(scratch, "trace.json"));
      const temp = await call(mcp.client, "import_artifact", {
        path: join(basename(scratch), "trace.json"),
        source_root: "temp",
      });
      expect(temp.isError).toBe(false);
      expect(temp.result.extraction.adapter).toBe("chrome-trace");
      const leaves = await call(mcp.client, "import_artifact", {
        path: "../etc/passwd",
        source_root: "temp",
      });
      expect(leaves.error).toMatchObject({ code: "ARTIFACT_REFUSED", details: { field: "path" } });
      expect(leaves.error.message).toContain("outside the system temp directory");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});
