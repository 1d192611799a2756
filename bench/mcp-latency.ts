/**
 * MCP round-trip benchmark, the way an agent uses the server. Builds a workspace holding
 * a generated cpuprofile with 1M samples and a generated Chrome trace, starts
 * `flameox mcp serve` as a real stdio client would, and measures:
 *
 * - the first `get_frame_callers` after server start (the frame id comes from a one-shot
 *   CLI call, so the server has decoded nothing before it);
 * - the first `get_frame_callers` after an unrelated import (a ~1 KB hyperfine file);
 * - warm p50/p95 of `analyze_hotspots`, `get_frame_callers`, `get_frame_callees` and
 *   `get_trace_window`;
 * - server RSS (and peak) from /proc after 100 mixed calls and 5 imports.
 *
 * Beside each first call's wall time, the CPU time the server's main thread spent on it
 * (/proc/PID/task/PID/stat): on a loaded machine the wall time mostly measures the load,
 * while the main thread's CPU time is what the call costs on an idle one.
 *
 * `--baseline DIR` runs the same measurements against another checkout (e.g. `git worktree
 * add /tmp/base main`) in the same run, one server after the other, on the same corpus,
 * so both see the same machine load. Figures only; no timed assertions.
 *
 *   bun bench/mcp-latency.ts [--samples 1000000] [--trace-mb 40] [--calls 100] [--baseline DIR]
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";

const { values } = parseArgs({
  options: {
    samples: { type: "string", default: "1000000" },
    "trace-mb": { type: "string", default: "40" },
    calls: { type: "string", default: "100" },
    baseline: { type: "string" },
  },
});
const samples = Number(values.samples);
const calls = Number(values.calls);
const here = resolve(import.meta.dir, "..");
const corpus = resolve(here, "fixtures", "corpus", "hyperfine");
const smallImports = [
  "local-hyperfine-1.15.0-named-prepare.json",
  "local-hyperfine-1.15.0-ignore-failure-exit-codes.json",
  "3em-tools-benchmarks-results.json",
];
const dir = mkdtempSync(join(tmpdir(), "flameox-mcp-bench-"));

function cliOf(repo: string) {
  const main = join(repo, "src", "cli", "main.ts");
  return (args: string[], cwd: string): string => {
    const r = Bun.spawnSync([process.execPath, main, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
    });
    if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stdout}${r.stderr}`);
    return r.stdout.toString();
  };
}

/** CPU time (user + system, ms) of a process's main thread; clock ticks are 10 ms. */
function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

interface Corpus {
  root: string;
  profile: string;
  trace: string;
  hot: string;
  callee: string;
  window: { start_ns: string; end_ns: string };
}

/** Runs the measurements against the checkout at `repo` over a copy of the workspace. */
async function measure(label: string, repo: string, source: Corpus): Promise<void> {
  const root = join(dir, label);
  cpSync(source.root, root, { recursive: true });
  for (const name of smallImports) copyFileSync(join(corpus, name), join(root, name));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repo, "src", "cli", "main.ts"), "mcp", "serve", "--project-root", root],
    env: { ...getDefaultEnvironment(), NO_COLOR: "1" },
    stderr: "ignore",
  });
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
  const rssAt = () => mib(memoryOf(pid).rss);
  const rss: string[] = [`started ${rssAt()}`];
  const callers = { run_or_artifact: source.profile, frame_id: source.hot, limit: 20 };
  const cpuBefore = mainThreadCpuMs(pid);
  const first = await call("get_frame_callers", callers);
  const firstCpu = mainThreadCpuMs(pid) - cpuBefore;
  rss.push(`first callers ${rssAt()}`);
  let imports = 0;
  const importOne = () =>
    call("import_artifact", { path: smallImports[imports++ % smallImports.length]! });
  await importOne();
  const cpuAfterImport = mainThreadCpuMs(pid);
  const afterImport = await call("get_frame_callers", callers);
  const afterImportCpu = mainThreadCpuMs(pid) - cpuAfterImport;
  console.log(
    `[${label}] first get_frame_callers after start ${first.ms.toFixed(1)} ms (main thread ` +
      `CPU ${firstCpu} ms); ` +
      `after an unrelated import ${afterImport.ms.toFixed(1)} ms (main thread ` +
      `CPU ${afterImportCpu} ms)`,
  );
  const warm: [string, string, Record<string, unknown>][] = [
    ["hotspots", "analyze_hotspots", { run_or_artifact: source.profile, limit: 20 }],
    ["callers", "get_frame_callers", callers],
    [
      "callees",
      "get_frame_callees",
      { run_or_artifact: source.profile, frame_id: source.callee, limit: 20 },
    ],
    [
      "trace window",
      "get_trace_window",
      { artifact_id: source.trace, ...source.window, limit: 50 },
    ],
  ];
  for (const [title, name, args] of warm) {
    const firstCall = await call(name, args);
    const times: number[] = [];
    for (let i = 0; i < calls; i++) times.push((await call(name, args)).ms);
    times.sort((a, b) => a - b);
    rss.push(`${title} ${rssAt()}`);
    console.log(
      `[${label}] ${title.padEnd(12)} first ${firstCall.ms.toFixed(1)} ms; warm x${calls}: ` +
        `p50 ${percentile(times, 0.5).toFixed(1)} ms, ` +
        `p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
  }
  // 100 mixed calls with imports spread among them (5 in all, one done above).
  for (let i = 0; i < 100; i++) {
    const [, name, args] = warm[i % warm.length]!;
    await call(name, args);
    if (i % 25 === 24) await importOne();
  }
  const mem = memoryOf(pid);
  const status = await call("workspace_status", {});
  const cache = (status.result.structuredContent as { result: { analysis_cache?: unknown } }).result
    .analysis_cache;
  console.log(
    `[${label}] after ${imports} imports and 100 mixed calls: server RSS ${mib(mem.rss)}, ` +
      `peak (VmHWM) ${mib(mem.hwm)}`,
  );
  console.log(`[${label}] RSS along the way: ${rss.join(", ")}`);
  if (cache) console.log(`[${label}] analysis_cache ${JSON.stringify(cache)}`);
  await client.close();
}

try {
  const cli = cliOf(here);
  const root = join(dir, "source");
  // The older checkout writes the config both accept (a newer one may add keys it refuses).
  cliOf(values.baseline ? resolve(values.baseline) : here)(["init", root], dir);
  const profilePath = join(root, "big.cpuprofile");
  // ~11 bytes per sample in the generator.
  await generateCpuProfile(profilePath, samples * 11 + 2_000_000);
  const tracePath = join(root, "big-trace.json");
  const traceInfo = await generateChromeTrace(tracePath, Number(values["trace-mb"]) * 2 ** 20);
  const profile = JSON.parse(cli(["import", profilePath, "--json"], root));
  const trace = JSON.parse(cli(["import", tracePath, "--json"], root));
  const hotspots = JSON.parse(
    cli(["analyze", "hotspots", profile.artifact_id, "--limit", "5", "--json"], root),
  );
  const bounds = JSON.parse(
    cli(["trace", "window", trace.artifact_id, "--start", "0", "--end", "0", "--json"], root),
  ).trace_bounds;
  const start = BigInt(bounds.start_ns);
  const span = BigInt(bounds.end_ns) - start;
  const window = {
    start_ns: (start + span / 2n).toString(),
    end_ns: (start + span / 2n + span / 1000n).toString(),
  };
  console.log(
    `corpus: cpuprofile with ${samples} samples (${profile.extraction.tables.stacks} ` +
      `stacks, ${profile.extraction.tables.call_edges} call edges); ` +
      `Chrome trace ${values["trace-mb"]} MiB, ${traceInfo.events} events ` +
      `(${trace.extraction.tables.trace_events} trace_events rows); trace ` +
      `window ${window.start_ns}..${window.end_ns}`,
  );
  const source: Corpus = {
    root,
    profile: profile.artifact_id,
    trace: trace.artifact_id,
    hot: hotspots.items[0].frame_id,
    callee: hotspots.items[1].frame_id,
    window,
  };
  if (values.baseline) await measure("baseline", resolve(values.baseline), source);
  await measure("candidate", here, source);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
