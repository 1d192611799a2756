/**
 * Parser benchmark. Generates, deterministically, a 200 MB and a 2 GB Chrome
 * trace, a 2M-sample cpuprofile, a 500 MB OTLP protobuf request and a 500 MB Perfetto
 * trace under /tmp, and for each prints, from one run: `flameox import` end to end to a
 * committed generation (MB/s, wall time, worker and CLI peak RSS), next to Bun JSON.parse
 * of the same bytes and the previous whole-payload parser (the TypeScript adapter for
 * JSON formats, protobufjs for protobuf), each in its own process. It also re-encodes the
 * generation's Parquet parts alone (parquet-wasm, the same rows and writer settings, one
 * core), the bound the encoder puts on any import of that input whatever the parser's
 * speed. Figures only.
 *
 *   bun bench/parsers-bench.ts [--scale 1] [--only chrome-200,chrome-2g,cpuprofile,otlp,perfetto]
 *   [--keep]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";
import { generateOtlpProto } from "../fixtures/generators/otlp-proto.ts";
import { generatePerfetto } from "../fixtures/generators/perfetto.ts";
import { runTimed } from "./measure-process.ts";

const { values } = parseArgs({
  options: {
    scale: { type: "string", default: "1" },
    only: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const MB = 1024 * 1024;
const scale = Number(values.scale);
const only = values.only ? new Set(values.only.split(",")) : null;
const repo = resolve(import.meta.dir, "..");
const cliPath = join(repo, "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-parsers-bench-"));

interface Measured {
  wallMs: number;
  maxRss: number;
  stdout: string;
  ok: boolean;
  stderr: string;
}

async function measure(argv: string[], cwd = dir): Promise<Measured> {
  const run = await runTimed(argv, cwd, true);
  return {
    wallMs: run.wallMs,
    maxRss: run.maxRssBytes,
    stdout: run.stdout,
    stderr: run.stderr,
    ok: run.exitCode === 0,
  };
}

const fmt = (bytes: number, ms: number) => `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

/** A one-off script run in its own process (so its RSS is its own). */
async function script(body: string): Promise<Measured> {
  const path = join(dir, `probe-${Math.random().toString(36).slice(2)}.ts`);
  await Bun.write(path, body);
  try {
    return await measure([process.execPath, path]);
  } finally {
    rmSync(path, { force: true });
  }
}

/**
 * Seconds parquet-wasm takes to encode the generation's parts again, from Arrow IPC (the
 * form the import hands it), the files decoded first and not timed.
 */
function encodeOnlyProbe(generationId: string): Promise<Measured> {
  return script(`import { readdirSync, readFileSync, existsSync } from "node:fs";
    import { join } from "node:path";
    import { initParquet, parquetToIpcStream, writeParquetFromIpc } from \
${JSON.stringify(join(repo, "src/storage/parquet.ts"))};
    await initParquet();
    const root = ${JSON.stringify(join(dir, ".diagnostics", "evidence"))};
    let ms = 0;
    for (const table of readdirSync(root)) {
      const gen = join(root, table, ${JSON.stringify(generationId)});
      if (!existsSync(gen)) continue;
      for (const part of readdirSync(gen)) {
        const ipc = parquetToIpcStream(readFileSync(join(gen, part)));
        const t = performance.now();
        writeParquetFromIpc(ipc);
        ms += performance.now() - t;
      }
    }
    console.log(ms);`);
}

function jsonParseProbe(path: string): Promise<Measured> {
  return script(
    `const t = performance.now(); JSON.parse(await ` +
      `Bun.file(${JSON.stringify(path)}).text()); console.log(performance.now() - t);`,
  );
}

function previousParserProbe(path: string, kind: "json" | "otlp" | "perfetto"): Promise<Measured> {
  if (kind === "json") {
    // The whole-payload TypeScript parsers are kept as the tests' reference implementations.
    return script(`import { detectAdapter } from \
${JSON.stringify(join(repo, "src/adapters/registry.ts"))};
      import { DEFAULT_ADAPTER_LIMITS } from \
${JSON.stringify(join(repo, "src/adapters/adapter.ts"))};
      import { chromeTraceReference } from \
${JSON.stringify(join(repo, "tests/adapters/reference-chrome-trace/reference-adapter.ts"))};
      import { cpuProfileReference } from \
${JSON.stringify(join(repo, "tests/adapters/reference-v8-cpuprofile/reference-adapter.ts"))};
      const t = performance.now(); const bytes = await Bun.file(${JSON.stringify(path)}).bytes();
      const head = new TextDecoder().decode(bytes.subarray(0, 65536));
      const adapter = detectAdapter({ head, displayName: ${JSON.stringify(path)} });
      const reference = [chromeTraceReference, cpuProfileReference].find((r) => r.name === \
adapter.name);
      await reference.extract({ bytes, displayName: "bench", limits: DEFAULT_ADAPTER_LIMITS });
      console.log(performance.now() - t);`);
  }
  const schema =
    kind === "otlp"
      ? "tests/adapters/reference-otlp/otlp-proto-schema.ts"
      : "tests/adapters/reference-perfetto/perfetto-schema.ts";
  const type = kind === "otlp" ? "ExportTraceServiceRequest" : "Trace";
  return script(`import { ${type} as T } from ${JSON.stringify(join(repo, schema))};
    const t = performance.now(); T.decode(await Bun.file(${JSON.stringify(path)}).bytes()); \
console.log(performance.now() - t);`);
}

async function bench(
  label: string,
  path: string,
  kind: "json" | "otlp" | "perfetto",
  previousLabel: string,
  runPrevious: boolean,
): Promise<void> {
  const bytes = statSync(path).size;
  const imported = await measure([process.execPath, cliPath, "import", path, "--json"]);
  const rows: [string, string][] = [["input", `${label}, ${mb(bytes)}`]];
  if (imported.ok) {
    const r = JSON.parse(imported.stdout);
    rows.push([
      "flameox import (WASM streaming), end to end to a committed generation",
      `${fmt(bytes, imported.wallMs)}, ${(imported.wallMs / 1000).toFixed(1)} s`,
    ]);
    rows.push([
      "  peak RSS: parse worker / CLI process",
      `${mb(r.extraction.worker.max_rss_bytes ?? 0)} / ${mb(imported.maxRss)} (worker ` +
        `wall ${(r.extraction.worker.wall_ms / 1000).toFixed(1)} s)`,
    ]);
    rows.push([
      "  rows",
      Object.entries(r.extraction.tables)
        .map(([t, n]) => `${t}=${n}`)
        .join(" "),
    ]);
    const encoded = await encodeOnlyProbe(r.extraction.generation_id);
    rows.push([
      "  Parquet encoding alone (parquet-wasm, same rows and settings, one core)",
      encoded.ok
        ? `${fmt(bytes, Number(encoded.stdout.trim()))} of ` +
          `input, ${(Number(encoded.stdout.trim()) / 1000).toFixed(1)} s`
        : `failed: ${encoded.stderr.trim().split("\n").pop()?.slice(0, 200)}`,
    ]);
  } else {
    rows.push(["flameox import", `FAILED: ${(imported.stdout + imported.stderr).slice(0, 300)}`]);
  }
  if (kind === "json") {
    const parsed = await jsonParseProbe(path);
    rows.push([
      "Bun JSON.parse of the same bytes (read + parse, one process)",
      parsed.ok
        ? `${fmt(bytes, Number(parsed.stdout.trim()))}, peak RSS ${mb(parsed.maxRss)}`
        : `failed: ${parsed.stderr.trim().split("\n").pop()}`,
    ]);
  }
  if (runPrevious) {
    const previous = await previousParserProbe(path, kind);
    rows.push([
      previousLabel,
      previous.ok
        ? `${fmt(bytes, Number(previous.stdout.trim()))}, peak RSS ${mb(previous.maxRss)}`
        : `failed: ${previous.stderr.trim().split("\n").pop()?.slice(0, 200)}`,
    ]);
  } else {
    rows.push([
      previousLabel,
      "not run at this size (it holds the whole file and its objects in memory)",
    ]);
  }
  for (const [k, v] of rows) console.log(`${k.padEnd(74)} ${v}`);
  console.log();
}

try {
  await measure([process.execPath, cliPath, "init", dir]);
  const want = (name: string) => only === null || only.has(name);
  if (want("chrome-200")) {
    const path = join(dir, "chrome-200.trace.json");
    const g = await generateChromeTrace(path, 200 * MB * scale);
    console.log(`generated chrome trace: ${g.events} events`);
    await bench(
      "Chrome trace JSON",
      path,
      "json",
      "previous TypeScript parser (JSON.parse + chrome-trace adapter)",
      true,
    );
    if (!values.keep) rmSync(path, { force: true });
  }
  if (want("chrome-2g")) {
    const path = join(dir, "chrome-2g.trace.json");
    const g = await generateChromeTrace(path, 2048 * MB * scale);
    console.log(`generated chrome trace: ${g.events} events`);
    await bench(
      "Chrome trace JSON",
      path,
      "json",
      "previous TypeScript parser (JSON.parse + chrome-trace adapter)",
      scale <= 0.15,
    );
    if (!values.keep) rmSync(path, { force: true });
  }
  if (want("cpuprofile")) {
    const path = join(dir, "generated.cpuprofile");
    const g = await generateCpuProfile(path, Math.round(21 * MB * scale));
    console.log(`generated cpuprofile: ${g.samples} samples, ${g.nodes} nodes`);
    await bench(
      "V8 cpuprofile",
      path,
      "json",
      "previous TypeScript parser (JSON.parse + v8-cpuprofile adapter)",
      true,
    );
    if (!values.keep) rmSync(path, { force: true });
  }
  if (want("otlp")) {
    const path = join(dir, "generated.otlp.pb");
    const g = await generateOtlpProto(path, 500 * MB * scale);
    console.log(`generated OTLP protobuf: ${g.spans} spans`);
    await bench(
      "OTLP protobuf (ExportTraceServiceRequest)",
      path,
      "otlp",
      "protobufjs decode of the same bytes (previous reference decoder)",
      true,
    );
    if (!values.keep) rmSync(path, { force: true });
  }
  if (want("perfetto")) {
    const path = join(dir, "generated.pftrace");
    const g = await generatePerfetto(path, 500 * MB * scale);
    console.log(`generated Perfetto trace: ${g.events} track events`);
    await bench(
      "Perfetto TracePacket stream",
      path,
      "perfetto",
      "protobufjs decode of the same bytes (previous reference decoder)",
      true,
    );
    if (!values.keep) rmSync(path, { force: true });
  }
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
