/**
 * Import benchmark. Generates, deterministically, a Chrome trace (200 MB), a V8
 * cpuprofile (2M samples), an OTLP protobuf export (500 MB), a Perfetto trace (500 MB)
 * and a raw Gecko (Firefox Profiler) profile (400 MB, samples before the tables they
 * point into), imports each through the CLI into a fresh workspace and prints, per input:
 * - MB/s end to end (CLI process start to a committed generation) and CPU seconds (the
 *   CLI and its parse worker: user + system);
 * - the parse worker's own peak RSS;
 * - the same bytes read and decoded in one Bun process — `JSON.parse` for JSON inputs,
 *   protobufjs `decode` for protobuf ones, a plain line split (streamed read, TextDecoder,
 *   indexOf) for text ones, once a round before the round's imports (its median) — and the ratio
 *   of the import's rate to it; for perf script and collapsed stacks also speedscope's own
 *   importer of the same file (bench/vendor/speedscope),
 *   of its first `--speedscope-mb` only when larger (speedscope holds 15–70x its input);
 * - where the time went: CLI start and exit, registration (copy + hash + fsync), worker
 *   start (spawn, runtime and modules), open and detect, scan and extraction, Parquet
 *   encoding on the worker's main thread and on its encode thread, publication.
 * For speedscope and DHAT (JSON formats whose readers used to parse the whole document), the
 * whole-payload path is measured beside the import in the same run: the reference adapter
 * (tests/adapters/reference-*) over the file in one process, with its CPU and peak RSS.
 * Not by default, `chrome-real`: real Chrome traces of the corpus (a browser's startup, a PyTorch
 * profiler's run) repeated to `--real-trace-mb` each, shifted in time
 * (fixtures/generators/replicated-trace.ts): real args, names and stack shapes. Likewise
 * `perfetto-real`: the corpus's Chromium startup Perfetto trace (from FLAMEOX_CORPUS, else
 * ../shared/corpus; it is too large to vendor) repeated to `--real-trace-mb`, each copy shifted in
 * time (fixtures/generators/replicated-perfetto.ts): Chrome's interning, incremental clocks,
 * nested debug annotations and a thread_time counter reading on every slice begin and end.
 * Then the fixed cost of importing a 1 MB profile (median of 5). With `--compiled` a
 * single-file binary (`make compile`: dist/flameox) runs every import too, as a CLI of its
 * own. With `--baseline-cli` every import is also run with another checkout's CLI,
 * alternating, in the same run; with `--rounds N` each CLI imports each input N times,
 * which of them goes first alternating round by round, and each prints its median import
 * (single imports vary by 15-25%). With `--scaling` this checkout's import also runs
 * pinned to one core (`taskset -c 0`), and the ratio of its rate on every core to that says
 * how the pipeline scales. With `--one-piece`
 * this checkout's import also runs with `extraction.scan_threads = 0` (every payload
 * scanned in one piece), so the piece threads' effect shows in the same run. With `--nest-thread`
 * it also runs with `extraction.nest_thread = 1` (slices nested on a thread of their own, which
 * by default needs 3 cores), with the parser thread's CPU beside the default's. With `--floor`,
 * for Chrome, cpuprofile, OTLP and Perfetto, the stages no import can skip are also run alone
 * and the fastest rate they leave is printed (bench/pipeline-floor.ts).
 * Figures only; nothing here asserts a time.
 *
 *   bun bench/import-bench.ts [--scale 0.1] [--only
 *   chrome,chrome-real,cpuprofile,otlp,perfetto,perfetto-real,perf,collapsed,gecko,speedscope,
 *   dhat,fixed]
 *       [--trace-mb 200] [--real-trace-mb 200] [--profile-samples 2000000] [--otlp-mb 500] [--perfetto-mb 500]
 *       [--perf-mb 500] [--collapsed-mb 500] [--gecko-mb 400] [--gecko-processes]
 *       [--speedscope-json-mb 400] [--dhat-mb 300]
 *       [--baseline-cli ../other/src/cli/main.ts] [--compiled dist/flameox] [--scaling]
 *       [--one-piece] [--nest-thread]
 *       [--floor] [--keep]
 *       [--speedscope-mb 100] [--worker-memory-mb 512] [--rounds 1]
 * `--worker-memory-mb` sets every workspace's `extraction.worker_memory_bytes`: the parse
 * worker's cap, and the budget its collections are paced by (garbage may otherwise grow
 * to half of the 8 GiB default, so the peak says little about what an import needs).
 */
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchWorkspace, cliArgv, runTimed, type TimedRun } from "./measure-process.ts";
import { type FloorKind, floorLines } from "./pipeline-floor.ts";
import { baselineDecode, speedscopeImport, wholePayload } from "./reference-readers.ts";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";
import { generateDhat } from "../fixtures/generators/dhat.ts";
import { generateGeckoProfile } from "../fixtures/generators/gecko.ts";
import { generateOtlpProto } from "../fixtures/generators/otlp-proto.ts";
import { generatePerfetto } from "../fixtures/generators/perfetto.ts";
import { generateSampledText } from "../fixtures/generators/sampled-stacks-text.ts";
import { generateSpeedscope } from "../fixtures/generators/speedscope.ts";
import { replicateChromeTrace } from "../fixtures/generators/replicated-trace.ts";
import { replicatePerfettoTrace } from "../fixtures/generators/replicated-perfetto.ts";

const { values } = parseArgs({
  options: {
    scale: { type: "string", default: "1" },
    only: {
      type: "string",
      default: "chrome,cpuprofile,otlp,perfetto,perf,collapsed,gecko,speedscope,dhat,fixed",
    },
    "trace-mb": { type: "string" },
    "real-trace-mb": { type: "string" },
    "profile-samples": { type: "string" },
    "otlp-mb": { type: "string" },
    "perfetto-mb": { type: "string" },
    "perf-mb": { type: "string" },
    "collapsed-mb": { type: "string" },
    "gecko-mb": { type: "string" },
    "gecko-processes": { type: "boolean", default: false },
    "speedscope-json-mb": { type: "string" },
    "dhat-mb": { type: "string" },
    "baseline-cli": { type: "string" },
    compiled: { type: "string" },
    scaling: { type: "boolean", default: false },
    "one-piece": { type: "boolean", default: false },
    "nest-thread": { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
    "worker-memory-mb": { type: "string" },
    keep: { type: "boolean", default: false },
    rounds: { type: "string", default: "1" },
    "speedscope-mb": { type: "string", default: "100" },
  },
});
const MB = 1024 * 1024;
/** Corpus traces the `chrome-real` inputs repeat: a browser's startup, a PyTorch profiler's run. */
const REAL_TRACES = [
  "local-chromium-headless-156-startup-trace.json.gz",
  "hta-kineto-cupti-profiler-a100.json.gz",
];
/** The real Perfetto trace `perfetto-real` repeats (external corpus: over the vendoring cap). */
const REAL_PERFETTO_TRACE = join(
  process.env.FLAMEOX_CORPUS ?? resolve(import.meta.dir, "..", "..", "shared", "corpus"),
  "perfetto",
  "local-chromium-headless-156-startup.pftrace",
);
const scale = Number(values.scale);
const sized = (flag: string | undefined, full: number) => (flag ? Number(flag) : full * scale);
const repo = resolve(import.meta.dir, "..");
const clis: [string, string][] = [["this checkout", join(repo, "src", "cli", "main.ts")]];
if (values["baseline-cli"]) clis.push(["baseline", resolve(values["baseline-cli"])]);
if (values.compiled) clis.push(["compiled binary", resolve(values.compiled)]);
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));

type Run = TimedRun;

function measure(argv: string[], cwd = dir, allowFailure = false): Promise<Run> {
  return runTimed(argv, cwd, allowFailure);
}

const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);

/**
 * Each CLI imports into a workspace it made itself: checkouts may differ in what a workspace holds.
 */
const workspaces = new Map<string, string>();

const configured = new Map<string, string>();
/** A workspace of this checkout whose parse workers run with one `[extraction]` setting. */
async function configuredWorkspace(cli: string, setting: string): Promise<string> {
  const known = configured.get(setting);
  if (known) return known;
  const workspace = mkdtempSync(join(dir, "workspace-configured-"));
  await measure([...cliArgv(cli), "init", workspace]);
  await Bun.write(join(workspace, ".diagnostics", "config.toml"), `[extraction]\n${setting}\n`);
  configured.set(setting, workspace);
  return workspace;
}

/** This checkout's import of `path` with one `[extraction]` setting: rate, summary and stages. */
async function importWith(cli: string, path: string, setting: string) {
  const { run, result } = await importOnce(cli, path, [], await configuredWorkspace(cli, setting));
  const rate = statSync(path).size / MB / (run.wallMs / 1000);
  return {
    rate,
    summary: `${f1(rate)} MB/s (${f0(run.wallMs)} ms), CPU ${f1(run.cpuMs / 1000)} s`,
    stages: stageLine(run, result),
    worker: result.extraction.worker,
  };
}

async function importOnce(
  cli: string,
  path: string,
  pin: string[] = [],
  workspace = workspaces.get(cli),
): Promise<{ run: Run; result: any }> {
  const run = await measure([...pin, ...cliArgv(cli), "import", path, "--json"], workspace);
  return { run, result: JSON.parse(run.stdout) };
}

function stageLine(run: Run, result: any): string {
  const worker = result.extraction.worker;
  const stages = worker.stages_ms ?? {};
  if (result.registration_ms === undefined || stages.total === undefined)
    return "(this CLI reports no stages)";
  // An import whose worker follows the copy (extractLanding) registers while the worker runs:
  // then the stages add up to more than the wall time, and the registration counts only where
  // it outlasts the worker. A CLI that registers first adds up to at most the wall time.
  const publish = result.extraction.publish_ms;
  const serial = run.wallMs - result.registration_ms - worker.wall_ms - publish;
  const overlapped = serial < 0;
  const cli = overlapped
    ? run.wallMs - Math.max(result.registration_ms, worker.wall_ms) - publish
    : serial;
  const workerStart = worker.wall_ms - stages.total + stages.start;
  const scan = stages.extract - stages.encode_inline;
  return [
    `CLI start+exit ${f0(cli)}`,
    `registration ${f0(result.registration_ms)}${overlapped ? " (beside the worker)" : ""}`,
    // A worker started before its request (an early extraction) waits for it after loading.
    `worker start ${f0(workerStart)}` +
      (stages.request_wait === undefined ? "" : ` (then waited ${f0(stages.request_wait)})`),
    `open/detect ${f0(stages.open_detect)}`,
    `scan/extract ${f0(scan)}`,
    // The thread's round trips overlap one another; its CPU is its busy time.
    `encode main ${f0(stages.encode_inline)} | thread ${f0(stages.encode_thread)} (round trips)` +
      (stages.encode_wait === undefined ? "" : `, waited for the thread ${f0(stages.encode_wait)}`),
    ...(stages.parser_cpu === undefined ? [] : [`parser thread CPU ${f0(stages.parser_cpu)}`]),
    ...(stages.encode_thread_cpu === undefined
      ? []
      : [`encode thread CPU ${f0(stages.encode_thread_cpu)}`]),
    `publish ${f0(result.extraction.publish_ms)}`,
  ].join(", ");
}

async function benchInput(
  label: string,
  kind: "json" | "otlp" | "perfetto" | "lines",
  path: string,
  speedscope?: "perf" | "collapsed",
  floor?: FloorKind,
): Promise<void> {
  const bytes = statSync(path).size;
  const mb = bytes / MB;
  console.log(`== ${label}, ${f1(mb)} MB`);
  // The generator's bytes are written back first: otherwise the first import's copy and fsync
  // wait on that writeback (a 500 MB file: 4.0 s of registration for the first CLI, 0.6 s for
  // the second), and whichever CLI imports first looks slower.
  const fd = openSync(path, "r");
  fsyncSync(fd);
  closeSync(fd);
  const speedscopeRate = speedscope
    ? await speedscopeImport(speedscope, path, Number(values["speedscope-mb"]) * MB)
    : null;
  const { imports, reference: base } = await alternatingImports(path, () =>
    baselineDecode(kind, path, dir),
  );
  const baseRate = mb / (base.ms / 1000);
  console.log(
    base.failure
      ? `  ${base.what} of the same bytes (read + decode, one process) failed: ${base.failure}`
      : `  ${base.what} of the same bytes (read + decode, one process): ${f0(baseRate)} MB/s ` +
          `(${f0(base.ms)} ms${base.spread})`,
  );
  if (speedscopeRate) console.log(`  ${speedscopeRate.line}`);
  for (const [name, cli] of clis) {
    const imported = imports.get(name)!;
    if (imported instanceof Error) {
      // A baseline that cannot import the input (over its memory cap) is a figure too.
      console.log(`  ${name}: failed: ${String(imported).slice(0, 400)}`);
      continue;
    }
    const { run, result, spread } = imported;
    const rate = mb / (run.wallMs / 1000);
    const worker = result.extraction.worker;
    console.log(
      `  ${name}: ${f1(rate)} MB/s end to end (${f0(run.wallMs)} ` +
        `ms${spread}), ` +
        (base.failure ? "" : `${(rate / baseRate).toFixed(2)}x ${base.what}; `) +
        `CPU ${f1(run.cpuMs / 1000)} s; ` +
        `worker peak ${f0((worker.max_rss_bytes ?? 0) / MB)} MiB` +
        (worker.memory_cap_bytes ? ` (cap ${f0(worker.memory_cap_bytes / MB)} MiB)` : "") +
        `, encode threads ${worker.encode_threads}, scan threads ${worker.scan_threads ?? 0}` +
        (speedscopeRate ? `; ${(rate / speedscopeRate.rate).toFixed(2)}x speedscope's rate` : ""),
    );
    console.log(`    stages (ms): ${stageLine(run, result)}`);
    console.log(
      `    rows: ${Object.entries(result.extraction.tables)
        .map(([t, n]) => `${t}=${n}`)
        .join(" ")}`,
    );
    if (values["one-piece"] && name === clis[0]![0]) {
      const one = await importWith(cli, path, "scan_threads = 0");
      console.log(
        `    in one piece (scan_threads = 0): ${one.summary}; worker peak ` +
          `${f0((one.worker.max_rss_bytes ?? 0) / MB)} MiB; pieces / one piece = ` +
          `${(rate / one.rate).toFixed(2)}x`,
      );
      console.log(`      stages (ms): ${one.stages}`);
    }
    if (values["nest-thread"] && name === clis[0]![0]) {
      const nest = await importWith(cli, path, "nest_thread = 1");
      console.log(
        `    with a nesting thread (nest_thread = 1; threads ${nest.worker.nest_threads ?? 0}): ` +
          `${nest.summary}, parser thread CPU ${f0(nest.worker.stages_ms?.parser_cpu)} ms ` +
          `against ${f0(worker.stages_ms?.parser_cpu)}`,
      );
      console.log(`      stages (ms): ${nest.stages}`);
    }
    if (values.floor && floor && name === clis[0]![0])
      for (const line of await floorLines(
        floor,
        path,
        bytes,
        workspaces.get(cli)!,
        result.extraction.generation_id,
      ))
        console.log(`    ${line}`);
    if (values.scaling && name === clis[0]![0]) {
      const one = await importOnce(cli, path, ["taskset", "-c", "0"]);
      const oneRate = mb / (one.run.wallMs / 1000);
      console.log(
        `    on one core: ${f1(oneRate)} MB/s (${f0(one.run.wallMs)} ms), ` +
          `CPU ${f1(one.run.cpuMs / 1000)} s; ${navigator.hardwareConcurrency} cores / 1 core ` +
          `= ${(rate / oneRate).toFixed(2)}x`,
      );
    }
  }
}

type Reference = Awaited<ReturnType<typeof baselineDecode>>;

/**
 * Each CLI's import of `path`, `--rounds` times, alternating which CLI goes first (this
 * checkout, baseline, then baseline, this checkout…): single imports here vary by 15-25%, mostly
 * in registration, and drift with the machine's state, so a comparison is of medians taken
 * side by side. The import with the median wall time stands for its CLI; `spread` says over
 * how many, and their range. The reference decode (`decode`) runs once a round too, before the
 * round's imports, and its median is the ratios' denominator: measured once, in a phase of the
 * machine the imports did not share, it moved the 2M-sample cpuprofile's ratio by a third from
 * one run to the next (JSON.parse at 44 and at 62 MB/s).
 */
async function alternatingImports(
  path: string,
  decode: () => Promise<Reference>,
): Promise<{
  imports: Map<string, Error | { run: Run; result: any; spread: string }>;
  reference: Reference & { spread: string };
}> {
  const rounds = Math.max(1, Math.floor(Number(values.rounds)));
  const runs = new Map<string, { run: Run; result: any }[]>(clis.map(([name]) => [name, []]));
  const failed = new Map<string, Error>();
  const references: Reference[] = [];
  for (let round = 0; round < rounds; round++) {
    // A reference that failed once (protobufjs over its memory) is not run again.
    if (references.at(-1)?.failure === undefined) references.push(await decode());
    const order = round % 2 === 0 ? clis : [...clis].reverse();
    for (const [name, cli] of order) {
      if (failed.has(name)) continue;
      try {
        runs.get(name)!.push(await importOnce(cli, path));
      } catch (error) {
        failed.set(name, error as Error);
      }
    }
  }
  const out = new Map<string, Error | { run: Run; result: any; spread: string }>();
  for (const [name] of clis) {
    const mine = runs.get(name)!.sort((a, b) => a.run.wallMs - b.run.wallMs);
    if (failed.has(name) || mine.length === 0) {
      out.set(name, failed.get(name) ?? new Error("no import ran"));
      continue;
    }
    out.set(name, { ...median(mine), spread: spreadOf(mine.map((m) => m.run.wallMs)) });
  }
  return { imports: out, reference: medianReference(references) };
}

/** The reference decode with the median time, or the failure that stopped it. */
function medianReference(references: Reference[]): Reference & { spread: string } {
  const failure = references.find((r) => r.failure !== undefined);
  if (failure) return { ...failure, spread: "" };
  const sorted = [...references].sort((a, b) => a.ms - b.ms);
  return { ...median(sorted), spread: spreadOf(sorted.map((r) => r.ms)) };
}

/** The middle entry of a sorted, non-empty list (the lower one of an even count). */
function median<T>(sorted: readonly T[]): T {
  return sorted[(sorted.length - 1) >> 1]!;
}

/** "; median of N, min-max ms" for sorted times, or nothing for one. */
function spreadOf(sortedMs: readonly number[]): string {
  return sortedMs.length > 1
    ? `; median of ${sortedMs.length}, ${f0(sortedMs[0]!)}-${f0(sortedMs.at(-1)!)} ms`
    : "";
}

async function fixedCost(path: string): Promise<void> {
  const mb = statSync(path).size / MB;
  for (const [name, cli] of clis) {
    const runs: { run: Run; result: any }[] = [];
    for (let i = 0; i < 5; i++) runs.push(await importOnce(cli, path));
    runs.sort((a, b) => a.run.wallMs - b.run.wallMs);
    const mid = runs[2]!;
    console.log(
      `  ${name}: importing a ${f1(mb)} MB cpuprofile: ${f0(mid.run.wallMs)} ms end to end, ` +
        `CPU ${f0(mid.run.cpuMs)} ms (median of 5; min ${f0(runs[0]!.run.wallMs)} ms)`,
    );
    // Where the median run's time went: what a small import pays whatever its size.
    console.log(`    stages (ms): ${stageLine(mid.run, mid.result)}`);
  }
}

try {
  const cap = values["worker-memory-mb"] ? Number(values["worker-memory-mb"]) * MB : undefined;
  for (const [, cli] of clis) workspaces.set(cli, await benchWorkspace(dir, cli, cap));
  const only = new Set(values.only.split(","));
  console.log(
    `load average ` +
      `${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}; ` +
      `${navigator.hardwareConcurrency} cores\n`,
  );
  if (only.has("chrome")) {
    const path = join(dir, "generated.trace.json");
    const t = await generateChromeTrace(path, sized(values["trace-mb"], 200) * MB);
    await benchInput(`Chrome trace JSON (${t.events} events)`, "json", path, undefined, "chrome");
  }
  if (only.has("chrome-real")) {
    // Real traces (vendored corpus files) grown by repetition: their args, names, tracks and stack
    // shapes, which the generator's random nesting does not have (it gives far more distinct
    // stacks and call edges per event, and far smaller args).
    for (const source of REAL_TRACES) {
      const path = join(dir, `${basename(source).split(".")[0]}.replicated.json`);
      const r = await replicateChromeTrace(
        join(repo, "fixtures", "corpus", "chrome-trace", source),
        path,
        sized(values["real-trace-mb"], 200) * MB,
      );
      await benchInput(
        `Chrome trace JSON, ${source} repeated ${r.copies} times (${r.events} events)`,
        "json",
        path,
      );
    }
  }
  if (only.has("cpuprofile")) {
    const samples = sized(values["profile-samples"], 2_000_000);
    const path = join(dir, "generated.cpuprofile");
    // ~11 bytes per sample in the generator, plus its node table.
    const p = await generateCpuProfile(path, samples * 11 + 2_000_000);
    await benchInput(
      `V8 cpuprofile (${p.samples} samples, ${p.nodes} nodes)`,
      "json",
      path,
      undefined,
      "cpuprofile",
    );
  }
  if (only.has("otlp")) {
    const path = join(dir, "generated.otlp.pb");
    const o = await generateOtlpProto(path, sized(values["otlp-mb"], 500) * MB);
    await benchInput(`OTLP protobuf (${o.spans} spans)`, "otlp", path, undefined, "otlp");
  }
  if (only.has("perfetto")) {
    const path = join(dir, "generated.perfetto-trace");
    const p = await generatePerfetto(path, sized(values["perfetto-mb"], 500) * MB);
    await benchInput(
      `Perfetto trace (${p.events} events)`,
      "perfetto",
      path,
      undefined,
      "perfetto",
    );
  }
  if (only.has("perfetto-real")) {
    if (!existsSync(REAL_PERFETTO_TRACE))
      console.log(`== perfetto-real: not run, ${REAL_PERFETTO_TRACE} is not there`);
    else {
      const path = join(dir, "chromium-startup.replicated.pftrace");
      const r = await replicatePerfettoTrace(
        REAL_PERFETTO_TRACE,
        path,
        sized(values["real-trace-mb"], 200) * MB,
      );
      await benchInput(
        `Perfetto trace, ${basename(REAL_PERFETTO_TRACE)} repeated ${r.copies} times ` +
          `(${r.packets} packets)`,
        "perfetto",
        path,
      );
    }
  }
  for (const [kind, label, flag] of [
    ["perf", "perf script text", "perf-mb"],
    ["collapsed", "collapsed stacks", "collapsed-mb"],
  ] as const) {
    if (!only.has(kind)) continue;
    const path = join(dir, `generated.${kind}.txt`);
    await generateSampledText(path, kind, sized(values[flag], 500) * MB);
    await benchInput(label, "lines", path, kind);
  }
  if (only.has("gecko")) {
    const path = join(dir, "generated.gecko.json");
    const layout = values["gecko-processes"] ? "processes" : "threads";
    const g = await generateGeckoProfile(path, sized(values["gecko-mb"], 400) * MB, 7, layout);
    await benchInput(
      `Gecko raw profile (${g.threads} ` +
        `threads${layout === "processes" ? " in a child process written first" : ""}, ` +
        `${g.samples} samples, ${g.markers} markers)`,
      "json",
      path,
    );
  }
  if (only.has("speedscope")) {
    const path = join(dir, "generated.speedscope.json");
    const g = await generateSpeedscope(path, sized(values["speedscope-json-mb"], 400) * MB);
    await benchInput(
      `speedscope JSON, py-spy's layout (${g.samples} samples in ${g.profiles} profiles, ` +
        `frames last)`,
      "json",
      path,
    );
    console.log(`  ${await wholePayload("speedscope", path, dir)}`);
  }
  if (only.has("dhat")) {
    const path = join(dir, "generated.dhat.json");
    const g = await generateDhat(path, sized(values["dhat-mb"], 300) * MB);
    await benchInput(
      `DHAT JSON (${g.points} program points, ${g.frames} frames last)`,
      "json",
      path,
    );
    console.log(`  ${await wholePayload("dhat", path, dir)}`);
  }
  if (only.has("fixed")) {
    console.log("== fixed cost");
    const small = join(dir, "small.cpuprofile");
    await generateCpuProfile(small, 1 * MB, 3);
    await fixedCost(small);
  }
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
