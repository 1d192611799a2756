/**
 * The published package as a user gets it: `npm pack`, then `npm install` of the tarball
 * into a clean project (from the npm cache when it holds everything, else from the npm
 * registry), then `npx flameox` with only Node on PATH and `bunx flameox` with Bun.
 * Slow by nature (npm unpacks ~140 packages), so every install path shares one install,
 * and the whole file belongs to the heavy lane: elsewhere its cases are listed as skipped
 * and nothing is packed or installed.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { HEAVY, heavyTest, REPO, SAMPLES, tempDir } from "../helpers.ts";

const NODE_ONLY_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const BUN_DIR = dirname(process.execPath);
const available =
  Bun.which("npm", { PATH: NODE_ONLY_PATH }) !== null &&
  Bun.which("bun", { PATH: NODE_ONLY_PATH }) === null;

let dir: ReturnType<typeof tempDir>;
let project: string;
let tarball: string;

function run(
  argv: string[],
  env: Record<string, string>,
  cwd = project,
): { code: number | null; stdout: string; stderr: string } {
  const child = Bun.spawnSync(argv, {
    cwd,
    env: { HOME: dir.path, NO_COLOR: "1", npm_config_update_notifier: "false", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: child.exitCode, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
}

beforeAll(() => {
  if (!available || !HEAVY) return;
  dir = tempDir("flameox-pack-");
  project = join(dir.path, "project");
  const env = { PATH: NODE_ONLY_PATH, npm_config_cache: join(process.env.HOME ?? "/root", ".npm") };
  const packed = run(["npm", "pack", "--silent", "--pack-destination", dir.path], env, REPO);
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  tarball = join(dir.path, packed.stdout.trim().split("\n").at(-1)!);
  run(["mkdir", "-p", project], env, dir.path);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "clean-project", private: true }),
  );
  // bun comes from npm as the optional peer the launcher looks for; both from the npm cache when it
  // has them.
  const installed = run(
    ["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", tarball, "bun@1.4.4"],
    env,
  );
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
}, 240_000);
afterAll(() => dir?.cleanup());

describe.skipIf(!available)("npm package", () => {
  heavyTest("the tarball carries the licence, launcher and runtime files, and no tests", () => {
    const root = join(project, "node_modules", "flameox");
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.repository.url).toContain("flameox");
    expect(manifest.bin.flameox).toBe("bin/flameox.mjs");
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toContain("Apache License");
    for (const path of [
      "src/cli/main.ts",
      "workers/parse.ts",
      "parsers-wasm/wasm/json-scanner.wasm",
      "fixtures/samples/sample.cpuprofile",
    ]) {
      expect(existsSync(join(root, path))).toBe(true);
    }
    expect(existsSync(join(root, "tests"))).toBe(false);
  });

  heavyTest(
    "npx flameox with only Node runs on the Bun installed from npm: help, then import and hotspots",
    () => {
      const env = { PATH: NODE_ONLY_PATH };
      const help = run(["npx", "--no-install", "flameox", "--help"], env);
      expect(help.stderr).toBe("");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("USAGE flameox");
      expect(run(["npx", "--no-install", "flameox", "init", "."], env).code).toBe(0);
      const imported = run(
        ["npx", "--no-install", "flameox", "import", join(SAMPLES, "sample.cpuprofile"), "--json"],
        env,
      );
      expect(imported.code).toBe(0);
      const artifact = JSON.parse(imported.stdout).artifact_id as string;
      const hotspots = run(
        ["npx", "--no-install", "flameox", "analyze", "hotspots", artifact, "--limit", "3"],
        env,
      );
      expect(hotspots.code).toBe(0);
      expect(hotspots.stdout.split("\n").length).toBeGreaterThan(3);
    },
  );

  heavyTest(
    "npx flameox with neither Bun on PATH nor the bun package prints the one-line instruction",
    () => {
      const modules = join(project, "node_modules");
      const hidden = ["bun", "@oven", ".bin/bun"].filter((p) => existsSync(join(modules, p)));
      for (const p of hidden) renameSync(join(modules, p), join(modules, `${p}.hidden`));
      try {
        const result = run(["npx", "--no-install", "flameox", "--help"], { PATH: NODE_ONLY_PATH });
        expect(result.code).toBe(3);
        expect(result.stdout).toBe("");
        expect(result.stderr.trim().split("\n")).toEqual([
          expect.stringContaining("npm install -g bun"),
        ]);
      } finally {
        for (const p of hidden) renameSync(join(modules, `${p}.hidden`), join(modules, p));
      }
    },
  );

  heavyTest("bunx flameox runs the installed package", () => {
    const env = { PATH: `${BUN_DIR}:${NODE_ONLY_PATH}` };
    const help = run(["bunx", "flameox", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("USAGE flameox");
    const version = run(["bunx", "flameox", "--version"], env);
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version,
    );
  });
});
