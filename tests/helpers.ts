/** Test helpers: temporary projects and a real CLI process. */
import { test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Provenance } from "../src/storage/parquet.ts";

export const REPO = resolve(import.meta.dir, "..");
/**
 * The vendored real-artifact corpus (see fixtures/corpus/NOTICE); the rest is the external lane's.
 */
export const CORPUS = join(REPO, "fixtures", "corpus");
export const SAMPLES = join(REPO, "fixtures", "samples");

/**
 * The heavy lane (`make test-heavy`, FLAMEOX_HEAVY=1): cases that generate tens of MB or
 * a million rows, run whole multi-trial experiments, drive whole outside programs (an npm
 * install, a browser), or sweep every corpus file where the default lane takes one per
 * format. Elsewhere they are registered as skipped, tagged [heavy], so every run's summary
 * counts them instead of dropping them silently.
 */
/** Provenance of evidence parts written by tests (one value per file). */
export const TEST_PROVENANCE: Provenance = {
  schema_version: 1,
  run_id: "run_t",
  artifact_id: "art_t",
  evidence_generation_id: "gen_t",
  extractor_name: "test",
  extractor_version: "1",
};

export const HEAVY = process.env.FLAMEOX_HEAVY === "1";
export function heavyTest(name: string, fn: () => Promise<void> | void, timeout?: number): void {
  (HEAVY ? test : test.skip)(`${name} [heavy]`, fn, timeout);
}

/**
 * Polls `condition` until it holds or `timeoutMs` passes, and says whether it held. Tests
 * wait on the state they need rather than sleeping a fixed time: done as soon as it holds,
 * and a loaded machine still gets the whole timeout.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<boolean> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(options.intervalMs ?? 20);
  }
}

export function tempDir(prefix = "flameox-test-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface CliResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs `flameox ARGS` as a separate process, the way a user or an agent would. */
export async function cli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  const child = Bun.spawn([process.execPath, join(REPO, "src", "cli", "main.ts"), ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  let json: unknown = null;
  if (args.includes("--json")) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = null;
    }
  }
  return {
    code: child.exitCode,
    signal: child.signalCode === null ? null : String(child.signalCode),
    stdout,
    stderr,
    json,
  };
}

/** A fresh initialized workspace in a temp dir. */
export async function tempWorkspace(): Promise<{ root: string; cleanup: () => void }> {
  const dir = tempDir();
  const result = await cli(["init", dir.path, "--json"], { cwd: dir.path });
  if (result.code !== 0) throw new Error(`init failed: ${result.stdout}${result.stderr}`);
  return { root: dir.path, cleanup: dir.cleanup };
}

/** Live (non-zombie) parse workers running under `root` (each runs in its staging directory). */
export function parseWorkersUnder(root: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0");
      if (
        !cmdline.some((a) => a.endsWith("workers/parse.ts")) ||
        !readlinkSync(`/proc/${name}/cwd`).startsWith(`${root}/`)
      )
        continue;
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, "latin1"))?.[1];
      if (state !== "Z") found.push(Number(name));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}
