/**
 * A read-only workspace (a read-only bind mount of a real one) answers every read
 * command; every write fails typed as WORKSPACE_READ_ONLY (exit 10).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, cli, tempDir, tempWorkspace } from "../helpers.ts";

let source: Awaited<ReturnType<typeof tempWorkspace>>;
const view = tempDir("flameox-ro-");
let mounted = false;
let profile: any;
let trace: any;

beforeAll(async () => {
  source = await tempWorkspace();
  profile = (
    await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: source.root })
  ).json;
  trace = (
    await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: source.root })
  ).json;
  mkdirSync(join(view.path, "ws"));
  const bind = Bun.spawnSync(["mount", "--bind", source.root, join(view.path, "ws")]);
  mounted =
    bind.exitCode === 0 &&
    Bun.spawnSync(["mount", "-o", "remount,ro,bind", join(view.path, "ws")]).exitCode === 0;
}, 60_000);

afterAll(() => {
  Bun.spawnSync(["umount", join(view.path, "ws")]);
  view.cleanup();
  source.cleanup();
});

describe("a read-only workspace", () => {
  test("answers every read command", async () => {
    // Mounting needs CAP_SYS_ADMIN; this suite's lane runs as root.
    expect(mounted).toBe(true);
    const cwd = join(view.path, "ws");
    const hot = (await cli(["analyze", "hotspots", profile.artifact_id, "--json"], { cwd })).json;
    const frame = hot.items[0].frame_id;
    const reads = [
      ["status"],
      ["validate"],
      ["validate", "--full"],
      ["runs", "list"],
      ["runs", "show", profile.run_id],
      ["artifacts", "list"],
      ["artifacts", "show", profile.artifact_id],
      ["analyze", "hotspots", profile.artifact_id],
      ["stacks", "callers", profile.artifact_id, frame],
      ["trace", "window", trace.artifact_id, "--start", "0", "--end", "9223372036854775807"],
      ["catalog", "validate"],
    ];
    const answers: Record<string, any> = {};
    for (const args of reads) {
      const result = await cli([...args, "--json"], { cwd });
      expect({ args, code: result.code, error: result.json?.error ?? null }).toEqual({
        args,
        code: 0,
        error: null,
      });
      answers[args.join(" ")] = result.json;
    }
    expect(answers.status.catalog.in_sync).toBe(true);
    expect(answers["validate --full"].ok).toBe(true);
  }, 120_000);

  test("refuses writes with WORKSPACE_READ_ONLY", async () => {
    expect(mounted).toBe(true);
    const cwd = join(view.path, "ws");
    for (const args of [
      ["import", join(SAMPLES, "sample.cpuprofile")],
      ["catalog", "rebuild"],
      ["recover"],
    ]) {
      const result = await cli([...args, "--json"], { cwd });
      expect({ args, code: result.code, error: result.json?.error?.code }).toEqual({
        args,
        code: 10,
        error: "WORKSPACE_READ_ONLY",
      });
    }
  }, 60_000);
});
