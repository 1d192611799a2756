/**
 * One CLI process run for a benchmark: wall time, peak RSS and stdout; a failing run stops the
 * benchmark.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";

export interface ProcessRun {
  wallMs: number;
  maxRss: number;
  stdout: string;
}

export async function measureProcess(argv: string[], cwd: string): Promise<ProcessRun> {
  const run = await runTimed(argv, cwd);
  return { wallMs: run.wallMs, maxRss: run.maxRssBytes, stdout: run.stdout };
}

/**
 * The parse worker's own peak RSS (VmHWM, which it reads itself) from an `import --json` result.
 */
export function workerPeak(importJson: string): number {
  return (
    (JSON.parse(importJson) as { extraction?: { worker?: { max_rss_bytes?: number | null } } })
      .extraction?.worker?.max_rss_bytes ?? 0
  );
}

/** A process run with its CPU time: the child's rusage includes the parse worker it waited for. */
export interface TimedRun {
  wallMs: number;
  /** User + system CPU of the process and its waited-for children. */
  cpuMs: number;
  maxRssBytes: number;
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs `argv` in `cwd`; a failing run throws unless `allowFailure`. */
export async function runTimed(
  argv: string[],
  cwd: string,
  allowFailure = false,
): Promise<TimedRun> {
  const started = performance.now();
  const child = Bun.spawn(argv, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  const wallMs = performance.now() - started;
  const exitCode = child.exitCode ?? -1;
  if (exitCode !== 0 && !allowFailure)
    throw new Error(`${argv.join(" ")} failed (${exitCode}): ${stdout}${stderr}`);
  const usage = child.resourceUsage();
  const cpuMs = usage
    ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000
    : Number.NaN;
  return { wallMs, cpuMs, maxRssBytes: usage?.maxRSS ?? Number.NaN, stdout, stderr, exitCode };
}

/** How to run a CLI: a checkout's main.ts under this Bun, a compiled binary as itself. */
export function cliArgv(cli: string): string[] {
  return cli.endsWith(".ts") ? [process.execPath, cli] : [cli];
}

/**
 * A fresh workspace under `dir` made by `cli`; with `workerMemoryBytes`, its parse workers get that
 * cap (and pace their collections by it).
 */
export async function benchWorkspace(
  dir: string,
  cli: string,
  workerMemoryBytes?: number,
): Promise<string> {
  const workspace = mkdtempSync(join(dir, "workspace-"));
  await runTimed([...cliArgv(cli), "init", workspace], dir);
  if (workerMemoryBytes)
    await Bun.write(
      join(workspace, ".diagnostics", "config.toml"),
      `[extraction]\nworker_memory_bytes = ${workerMemoryBytes}\n`,
    );
  return workspace;
}
