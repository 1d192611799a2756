/**
 * Start-up benchmark: how long flameox takes before it does any work. Prints, each the
 * median of N fresh processes, beside `bun -e 0`: `--version`, `--help`, `status`,
 * `import` of a missing file (everything an import does before its copy begins: start,
 * open the workspace, create the run), and MCP `initialize` (spawn to the answer), the
 * first `tools/list` and `tools/call` after it, and the size of `tools/list`. Wall and
 * CPU (user+system) time. With --commands, also the read-only commands over a workspace
 * holding the sample profile (twice) and trace: each pays for what its command module
 * loads (arktype and its request schemas where it checks a request). Figures only.
 *
 *   bun bench/startup-bench.ts [--runs 20] [--binary dist/flameox] [--commands]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    binary: { type: "string" },
    commands: { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const cli = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-startup-"));
const env = { ...process.env, NO_COLOR: "1" };

interface Sample {
  wallMs: number;
  cpuMs: number;
  exitCode: number;
}

function once(argv: string[]): Sample {
  const started = performance.now();
  const r = Bun.spawnSync(argv, { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  const wallMs = performance.now() - started;
  const usage = r.resourceUsage;
  const cpuMs = usage
    ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000
    : Number.NaN;
  return { wallMs, cpuMs, exitCode: r.exitCode };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(label: string, argv: string[]): void {
  const samples = Array.from({ length: runs }, () => once(argv));
  const wall = median(samples.map((s) => s.wallMs));
  const cpu = median(samples.map((s) => s.cpuMs));
  // A command that failed measured its refusal, not its work: say so beside the figure.
  const exit = samples[0]!.exitCode === 0 ? "" : `   exit ${samples[0]!.exitCode}`;
  console.log(
    `${label.padEnd(44)} wall ${wall.toFixed(0).padStart(5)} ms   ` +
      `cpu ${cpu.toFixed(0).padStart(5)} ms   (median of ${runs})${exit}`,
  );
}

/** Spawn a server, send initialize, time the answer; then tools/list and its byte size. */
async function mcpInitialize(
  cmd: string[],
): Promise<{ initMs: number; listMs: number; callMs: number; listBytes: number; tools: number }> {
  const started = performance.now();
  const child = Bun.spawn([...cmd, "mcp", "serve", "--project-root", dir], {
    cwd: dir,
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = child.stdout.getReader();
  let buffered = "";
  const next = async (): Promise<{ text: string; at: number }> => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const text = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return { text, at: performance.now() };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("server closed its output");
      buffered += new TextDecoder().decode(value);
    }
  };
  const send = (msg: unknown) => {
    child.stdin.write(`${JSON.stringify(msg)}\n`);
    child.stdin.flush();
  };
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    },
  });
  const init = await next();
  const initMs = init.at - started;
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const listStart = performance.now();
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const list = await next();
  const listMs = list.at - listStart;
  const tools = (JSON.parse(list.text).result?.tools ?? []).length;
  // The first tools/call pays for whatever loads lazily (the tools' schemas, the services).
  const callStart = performance.now();
  send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "workspace_status", arguments: {} },
  });
  const call = await next();
  const callMs = call.at - callStart;
  child.stdin.end();
  await child.exited;
  return { initMs, listMs, callMs, listBytes: Buffer.byteLength(list.text), tools };
}

async function reportMcp(label: string, cmd: string[]): Promise<void> {
  const n = Math.max(3, Math.min(runs, 10));
  const samples = [];
  for (let i = 0; i < n; i++) samples.push(await mcpInitialize(cmd));
  const last = samples.at(-1)!;
  console.log(
    `${label.padEnd(44)} initialize ${median(samples.map((s) => s.initMs)).toFixed(0)} ms, ` +
      `first tools/list ${median(samples.map((s) => s.listMs)).toFixed(0)} ms, ` +
      `first tools/call (workspace_status) ${median(samples.map((s) => s.callMs)).toFixed(0)} ms ` +
      `(median of ${n}); tools/list ${last.tools} tools, ${last.listBytes} bytes ` +
      `(~${Math.round(last.listBytes / 4)} tokens)`,
  );
}

const samples = resolve(import.meta.dir, "..", "fixtures", "samples");

/** Imports a sample and returns its run and artifact ids. */
function importSample(cmd: string[], file: string): { run: string; artifact: string } {
  const r = Bun.spawnSync([...cmd, "import", join(samples, file), "--json"], { cwd: dir, env });
  const out = JSON.parse(r.stdout.toString()) as { run_id: string; artifact_id: string };
  return { run: out.run_id, artifact: out.artifact_id };
}

/** The read-only commands people run most, over one workspace's imported samples. */
function reportCommands(name: string, cmd: string[]): void {
  const base = importSample(cmd, "sample.cpuprofile");
  const candidate = importSample(cmd, "sample.cpuprofile");
  const trace = importSample(cmd, "sample-trace.json");
  const hotspots = Bun.spawnSync([...cmd, "analyze", "hotspots", base.run, "--json"], {
    cwd: dir,
    env,
  });
  const frame = /"frame_id": "([^"]+)"/.exec(hotspots.stdout.toString())?.[1] ?? "missing";
  const commands: [string, string[]][] = [
    ["runs list", ["runs", "list"]],
    ["runs show", ["runs", "show", base.run]],
    ["artifacts show", ["artifacts", "show", base.artifact]],
    ["analyze hotspots", ["analyze", "hotspots", base.run]],
    ["stacks examples", ["stacks", "examples", base.run, frame]],
    [
      "trace window",
      ["trace", "window", trace.artifact, "--start", "0", "--end", "999999999999999"],
    ],
    ["diff", ["diff", base.run, candidate.run]],
    ["summarize", ["summarize", base.run]],
    ["measurements query", ["measurements", "query", "--run-id", base.run]],
    ["investigations list", ["investigations", "list"]],
    ["workload list", ["workload", "list"]],
  ];
  for (const [label, argv] of commands) report(`${name}: flameox ${label}`, [...cmd, ...argv]);
}

try {
  const source = [process.execPath, cli];
  Bun.spawnSync([...source, "init", dir], { env });
  report("bun -e 0", [process.execPath, "-e", "0"]);
  const variants: [string, string[]][] = [["source", source]];
  if (values.binary) variants.push(["binary", [resolve(values.binary)]]);
  for (const [name, cmd] of variants) {
    report(`${name}: flameox --version`, [...cmd, "--version"]);
    report(`${name}: flameox --help`, [...cmd, "--help"]);
    report(`${name}: flameox status`, [...cmd, "status"]);
    report(`${name}: flameox import (missing file: start-up to copy)`, [
      ...cmd,
      "import",
      join(dir, "missing.json"),
    ]);
    await reportMcp(`${name}: mcp serve`, cmd);
    if (values.commands) reportCommands(name, cmd);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
