/**
 * Broker overhead: wall time of `flameox capture run command` on `true` and on a 1 s
 * sleep, against running the same argv directly (median of N, default 20), the same
 * capture in-process (no CLI start-up), and the resource sampler's cost per tick.
 *   bun bench/broker-overhead.ts [N]
 * Figures, not assertions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WorkspaceService } from "../src/application/workspace-service.ts";
import { ResourceSampler } from "../src/broker/resource-sampler.ts";

const N = Number(process.argv[2] ?? 20);
const CLI = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const root = mkdtempSync(join(tmpdir(), "flameox-bench-"));
writeFileSync(join(root, "flameox.toml"), '[workloads.true]\nargv = ["true"]\n\n[workloads.sleep1]\nargv = ["sleep", "1"]\n');
await WorkspaceService.init(root);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
async function timed(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}
const spawnWait = async (argv: string[], cwd = root) => {
  const child = Bun.spawn(argv, { cwd, stdout: "ignore", stderr: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  if ((await child.exited) !== 0) throw new Error(`${argv.join(" ")} failed`);
};

const service = await WorkspaceService.open({ workspace: root });
// Only approved workloads run: approve both as `flameox workload approve NAME --yes` would.
for (const name of ["true", "sleep1"]) (await service.capture()).approveWorkload(name);
const rows: string[][] = [["workload", "direct argv", "capture in-process", "flameox capture run (CLI)", "CLI `--version` start-up"]];
const startup = await timed(N, () => spawnWait([process.execPath, CLI, "--version"]));
const samplerCosts: { samples: number; ms: number }[] = [];
for (const [name, argv] of [["true", ["/bin/true"]], ["sleep1", ["/bin/sleep", "1"]]] as const) {
  const direct = await timed(N, () => spawnWait([...argv]));
  const inProcess = await timed(N, async () => {
    const r = await (await service.capture()).run({ adapter: "command", workload: name });
    samplerCosts.push({ samples: r.resources.samples, ms: r.resources.sampler_cpu_ms });
  });
  const viaCli = await timed(N, () => spawnWait([process.execPath, CLI, "capture", "run", "command", "--workload", name, "--json"]));
  rows.push([name, `${direct.toFixed(1)} ms`, `${inProcess.toFixed(1)} ms`, `${viaCli.toFixed(1)} ms`, `${startup.toFixed(1)} ms`]);
}
service.close();

// Sampler cost per tick over a tree of 1 and of 21 processes (a shell with 20 sleeping children).
async function tickCost(argv: string[]): Promise<{ processes: number; perTickMs: number }> {
  const child = Bun.spawn(argv, { stdout: "ignore", stderr: "ignore", detached: true });
  await Bun.sleep(300);
  const sampler = new ResourceSampler(child.pid, { intervalMs: 250, freeBytesPath: root }, () => {});
  const ticks = 200;
  for (let i = 0; i < ticks; i++) sampler.tick();
  const report = sampler.report();
  process.kill(-child.pid, "SIGKILL");
  await child.exited;
  return { processes: report.max_processes_observed, perTickMs: report.sampler_cpu_ms / ticks };
}
const small = await tickCost(["/bin/sleep", "30"]);
const wide = await tickCost(["/bin/sh", "-c", "for i in $(seq 20); do sleep 30 & done; wait"]);
rmSync(root, { recursive: true, force: true });

const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
console.log(`broker overhead, median of ${N} (machine: ${navigator.hardwareConcurrency} cores)`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(width[i]!)).join("  "));
const totalSamples = samplerCosts.reduce((a, c) => a + c.samples, 0);
const totalMs = samplerCosts.reduce((a, c) => a + c.ms, 0);
console.log(`sampler during captures: ${totalSamples} samples, ${totalMs.toFixed(2)} ms total, ${(totalMs / Math.max(1, totalSamples)).toFixed(3)} ms per sample`);
for (const c of [small, wide]) {
  console.log(`sampler tick over ${c.processes} process(es): ${c.perTickMs.toFixed(3)} ms per tick = ${((100 * c.perTickMs) / 250).toFixed(3)}% of one core at the default 250 ms interval`);
}
