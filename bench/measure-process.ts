/**
 * One CLI process run for a benchmark: wall time, peak RSS and stdout; a failing run stops the
 * benchmark.
 */
export interface ProcessRun {
  wallMs: number;
  maxRss: number;
  stdout: string;
}

export async function measureProcess(argv: string[], cwd: string): Promise<ProcessRun> {
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
  if (child.exitCode !== 0)
    throw new Error(`${argv.join(" ")} failed (${child.exitCode}): ${stdout}${stderr}`);
  return {
    wallMs: performance.now() - started,
    maxRss: child.resourceUsage()?.maxRSS ?? 0,
    stdout,
  };
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
