/**
 * What import-bench measures an import against, each in a fresh process: a plain read and
 * decode of the same bytes (JSON.parse, protobufjs, a line split), speedscope's own importer
 * of a text profile, and the whole-payload readers that streaming imports replaced.
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { runTimed } from "./measure-process.ts";

const MB = 1024 * 1024;
const repo = resolve(import.meta.dir, "..");
const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);

/** Counts the lines of a file read as a stream: the floor for a line-oriented text import. */
const LINE_SPLIT = `(async () => { const d = new TextDecoder(); let carry = "", lines = 0;
  for await (const chunk of Bun.file(P).stream()) { \
const text = carry + d.decode(chunk, { stream: true }); let at = 0;
    for (let end = text.indexOf("\\n"); end >= 0; end = text.indexOf("\\n", at)) { \
lines++; at = end + 1; } carry = text.slice(at); }
  return lines; })()`;

/**
 * An expression decoding file P's field-1 messages of `type` one at a time with protobufjs (the
 * schema module at `schema` exports its root as `root`); it yields how many there were.
 */
function messageByMessage(schema: string, root: string, type: string): string {
  return (
    `await (async () => { const { ${root} } = await import(${JSON.stringify(join(repo, schema))}); ` +
    `const Message = ${root}.lookupType(${JSON.stringify(type)}); ` +
    `const { Reader } = (await import(${JSON.stringify(join(repo, "node_modules/protobufjs/index.js"))})).default; ` +
    `const r = Reader.create(await Bun.file(P).bytes()); let n = 0; ` +
    `while (r.pos < r.len) { const tag = r.uint32(); ` +
    `if (tag === 10) { Message.decode(r, r.uint32()); n++; } else r.skipType(tag & 7); } ` +
    `return n; })()`
  );
}

/** Reads and decodes the file in a fresh Bun process: the yardstick for the import's rate. */
export async function baselineDecode(
  kind: string,
  path: string,
  cwd: string,
): Promise<{ ms: number; what: string; failure?: string }> {
  const decoders: Record<string, [string, string]> = {
    lines: ["plain line split", `await ${LINE_SPLIT}`],
    json: ["Bun JSON.parse", "JSON.parse(await Bun.file(P).text())"],
    // Message by message, each decoded and dropped (a request is `repeated ResourceSpans
    // resource_spans = 1`, a trace `repeated TracePacket packet = 1`): the same decode work as
    // decoding the whole, without holding every message as an object at once, which took a
    // 500 MB Perfetto trace past 23 GiB (killed) and a 2 GB OTLP request to 23.8 GiB.
    otlp: [
      "protobufjs decode, ResourceSpans by ResourceSpans",
      messageByMessage(
        "tests/adapters/reference-otlp/otlp-proto-schema.ts",
        "otlpRoot",
        "otlp.ResourceSpans",
      ),
    ],
    perfetto: [
      "protobufjs decode, packet by packet",
      messageByMessage(
        "tests/adapters/reference-perfetto/perfetto-schema.ts",
        "perfettoRoot",
        "perfetto.TracePacket",
      ),
    ],
  };
  const [what, expression] = decoders[kind]!;
  // Module loading is not part of the decode; the read is, as the import reads the file too.
  const script = `const P = ${JSON.stringify(path)}; ${
    kind === "json" || kind === "lines"
      ? ""
      : `await import(${JSON.stringify(
          join(
            repo,
            kind === "otlp"
              ? "tests/adapters/reference-otlp/otlp-proto-schema.ts"
              : "tests/adapters/reference-perfetto/perfetto-schema.ts",
          ),
        )});`
  }
    const t = performance.now(); const v = ${expression}; console.log(performance.now() - t);`;
  // The reference may fail where the import does not (protobufjs holds a whole 500 MB Perfetto
  // trace as objects, and was killed): that is a finding to print, not a reason to stop.
  const run = await runTimed([process.execPath, "-e", script], cwd, true);
  if (run.exitCode !== 0)
    return {
      ms: Number.NaN,
      what,
      failure: `exit ${run.exitCode} after ${Math.round(run.wallMs)} ms, peak ${Math.round(run.maxRssBytes / 2 ** 20)} MiB`,
    };
  return { ms: Number(run.stdout.trim().split("\n").at(-1)), what };
}

/**
 * speedscope 1.25.0's own importer of the same file in a fresh process
 * (bench/speedscope-import.ts): its rate, and its peak RSS (the process's own).
 */
export async function speedscopeImport(kind: "perf" | "collapsed", path: string, cap: number) {
  const started = performance.now();
  const child = Bun.spawn(
    [process.execPath, join(repo, "bench", "speedscope-import.ts"), kind, path, String(cap)],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
  );
  const stdout = await new Response(child.stdout).text();
  await child.exited;
  const wallMs = performance.now() - started;
  if (child.exitCode !== 0)
    return { rate: Number.NaN, line: `speedscope's importer failed (${child.exitCode})` };
  const { ms, bytes, peakBytes } = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    ms: number;
    bytes: number;
    peakBytes: number | null;
  };
  const peak = (peakBytes ?? Number.NaN) / MB;
  const mb = bytes / MB;
  const what =
    bytes < statSync(path).size
      ? `the first ${f1(mb)} MB of the same bytes (--speedscope-mb: it holds many times its ` +
        `input in memory)`
      : "the same bytes";
  return {
    rate: mb / (ms / 1000),
    line:
      `speedscope 1.25.0's importer of ${what} (read + decode + its profile, one process): ` +
      `${f1(mb / (ms / 1000))} MB/s (${f0(ms)} ms; ${f0(wallMs)} ms with its start), peak ` +
      `RSS ${f0(peak)} MiB`,
  };
}

/**
 * The whole-payload reader of a JSON format over the same file, in one process: what the import
 * replaced (speedscope, DHAT).
 */
export async function wholePayload(
  format: "speedscope" | "dhat",
  path: string,
  cwd: string,
): Promise<string> {
  const mb = statSync(path).size / MB;
  const run = await runTimed(
    [process.execPath, join(repo, "bench", "whole-payload-extract.ts"), format, path],
    cwd,
    true,
  );
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  if (!last.startsWith("{")) {
    const why = run.stderr.trim().split("\n").at(-1) ?? "";
    return (
      `whole-payload path (JSON.parse reference, one process): failed ` +
      `after ${f0(run.wallMs)} ms, peak RSS ${f0(run.maxRssBytes / MB)} ` +
      `MiB: ${why.slice(0, 200)}`
    );
  }
  const { ms, peakBytes } = JSON.parse(last) as { ms: number; peakBytes: number | null };
  return (
    `whole-payload path (JSON.parse reference, one process, no ` +
    `Parquet): ${f1(mb / (ms / 1000))} MB/s (${f0(ms)} ms), CPU ${f1(run.cpuMs / 1000)} s, ` +
    `peak RSS ${f0((peakBytes ?? run.maxRssBytes) / MB)} MiB`
  );
}
