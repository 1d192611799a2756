/**
 * Import benchmark. Generates, deterministically, a ~200 MB Chrome trace and a ~100 MB
 * cpuprofile, then for each prints: end-to-end import throughput (CLI process, file to
 * committed generation), peak RSS of the CLI process and of its parse worker, and
 * `analyze hotspots` latency, next to plain `JSON.parse` of the same bytes measured in
 * the same run. Figures only; nothing here asserts a time.
 *
 *   bun bench/import-bench.ts [--trace-mb 200] [--profile-mb 100] [--keep]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";

const { values } = parseArgs({ options: { "trace-mb": { type: "string", default: "200" }, "profile-mb": { type: "string", default: "100" }, keep: { type: "boolean", default: false } } });
const MB = 1024 * 1024;
const cliPath = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));

interface Measured {
  wallMs: number;
  maxRss: number;
  stdout: string;
}

async function measure(argv: string[], cwd = dir): Promise<Measured> {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  const wallMs = performance.now() - started;
  if (child.exitCode !== 0) throw new Error(`${argv.join(" ")} failed (${child.exitCode}): ${stdout}${stderr}`);
  return { wallMs, maxRss: child.resourceUsage()?.maxRSS ?? 0, stdout };
}

const fmtMb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

async function benchFile(label: string, path: string): Promise<void> {
  const bytes = statSync(path).size;
  const parse = await measure([process.execPath, "-e", `const t=performance.now();const v=JSON.parse(await Bun.file(${JSON.stringify(path)}).text());console.log(performance.now()-t)`]);
  const parseMs = Number(parse.stdout.trim());
  const imported = await measure([process.execPath, cliPath, "import", path, "--json"]);
  const result = JSON.parse(imported.stdout);
  const hotspots: number[] = [];
  for (let i = 0; i < 3; i++) hotspots.push((await measure([process.execPath, cliPath, "analyze", "hotspots", result.artifact_id, "--limit", "20", "--json"])).wallMs);
  hotspots.sort((a, b) => a - b);
  const rows = [
    ["input", `${label}, ${fmtMb(bytes)}`],
    ["baseline JSON.parse (read+parse in one Bun process)", `${(bytes / MB / (parseMs / 1000)).toFixed(0)} MB/s parse, ${parseMs.toFixed(0)} ms, peak RSS ${fmtMb(parse.maxRss)}`],
    ["flameox import, end to end to a committed generation", `${(bytes / MB / (imported.wallMs / 1000)).toFixed(0)} MB/s, ${imported.wallMs.toFixed(0)} ms`],
    ["  peak RSS: CLI process tree (includes the worker) / parse worker itself", `${fmtMb(imported.maxRss)} / ${fmtMb(result.extraction.worker.max_rss_bytes ?? 0)} (worker wall ${result.extraction.worker.wall_ms} ms)`],
    ["  rows", Object.entries(result.extraction.tables).map(([t, n]) => `${t}=${n}`).join(" ")],
    ["analyze hotspots latency (CLI process, median of 3)", `${hotspots[1]!.toFixed(0)} ms (min ${hotspots[0]!.toFixed(0)}, max ${hotspots[2]!.toFixed(0)})`],
  ];
  for (const [k, v] of rows) console.log(`${k!.padEnd(72)} ${v}`);
  console.log();
}

try {
  await measure([process.execPath, cliPath, "init", dir]);
  const tracePath = join(dir, "generated.trace.json");
  const profilePath = join(dir, "generated.cpuprofile");
  const t = await generateChromeTrace(tracePath, Number(values["trace-mb"]) * MB);
  const p = await generateCpuProfile(profilePath, Number(values["profile-mb"]) * MB);
  console.log(`generated: chrome trace ${t.events} events; cpuprofile ${p.samples} samples, ${p.nodes} nodes\n`);
  await benchFile("Chrome trace JSON", tracePath);
  await benchFile("V8 cpuprofile", profilePath);
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
