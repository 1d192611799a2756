/**
 * MCP round-trip benchmark. Builds a corpus holding a generated cpuprofile with 1M
 * samples, starts `flameox mcp serve` as a real stdio client would, and times 100 warm
 * calls each of `analyze_hotspots` and `get_frame_callers` (p50, p95), with the server's
 * resident memory from /proc. Figures only.
 *
 *   bun bench/mcp-latency.ts [--samples 1000000] [--calls 100]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";

const { values } = parseArgs({ options: { samples: { type: "string", default: "1000000" }, calls: { type: "string", default: "100" } } });
const samples = Number(values.samples);
const calls = Number(values.calls);
const cli = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-mcp-bench-"));

function run(args: string[]): string {
  const r = Bun.spawnSync([process.execPath, cli, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stdout}${r.stderr}`);
  return r.stdout.toString();
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

try {
  run(["init", dir]);
  const profile = join(dir, "big.cpuprofile");
  // ~11 bytes per sample in the generator.
  await generateCpuProfile(profile, samples * 11 + 2_000_000);
  const imported = JSON.parse(run(["import", profile, "--json"]));
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "serve", "--project-root", dir], env: { ...getDefaultEnvironment(), NO_COLOR: "1" }, stderr: "ignore" });
  const client = new Client({ name: "flameox-bench", version: "0" });
  await client.connect(transport);
  const pid = transport.pid!;
  const call = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args });
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent)}`);
    return { ms, result };
  };
  const first = await call("analyze_hotspots", { run_or_artifact: imported.artifact_id, limit: 20 });
  const hot = (first.result.structuredContent as { result: { items: { frame_id: string }[] } }).result.items[0]!.frame_id;
  const firstCallers = await call("get_frame_callers", { run_or_artifact: imported.artifact_id, frame_id: hot, limit: 20 });
  console.log(`corpus: cpuprofile with ${samples} samples (${imported.extraction.tables.stacks} stacks, ${imported.extraction.tables.call_edges} call edges)`);
  console.log(`cold first call: analyze_hotspots ${first.ms.toFixed(1)} ms, get_frame_callers ${firstCallers.ms.toFixed(1)} ms (engine start + load)`);
  for (const [name, args] of [
    ["analyze_hotspots", { run_or_artifact: imported.artifact_id, limit: 20 }],
    ["get_frame_callers", { run_or_artifact: imported.artifact_id, frame_id: hot, limit: 20 }],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < calls; i++) times.push((await call(name, args)).ms);
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(18)} warm x${calls}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
  }
  const mem = memoryOf(pid);
  console.log(`server memory: RSS ${(mem.rss / 2 ** 20).toFixed(0)} MiB, peak (VmHWM) ${(mem.hwm / 2 ** 20).toFixed(0)} MiB`);
  await client.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
