/**
 * Nsight Systems export benchmark. Generates, deterministically, an export with N kernels
 * (default 1,000,000) over 4 streams, each launched by a cudaLaunchKernel call on one host
 * thread (same correlation id; fixtures/generators/nsys-sqlite.ts), and prints, per size:
 * - a plain bun:sqlite read of the kernel and runtime rows in this process (a floor);
 * - the import through the CLI (file to committed generation): wall time, CPU seconds (the
 *   CLI and its parse worker), the parse worker's own peak RSS and its stages. With
 *   `--baseline-cli` every import is also run with another checkout's CLI, alternating, in
 *   the same run, each into a workspace it made itself. With `--cap-mib N` the workspaces
 *   give their parse workers an N MiB memory cap (a cgroup where the host allows one).
 * - with `--stages`, this checkout's reader run in a fresh process stage by stage, the way
 *   the parse worker runs it (spool to a spill file, open, plan, read in order, rows and
 *   Parquet encoding), beside the held path (the payload collected, deserialized, every
 *   event held and sorted in memory): time, CPU time (all the process's threads) and peak
 *   RSS of each stage (VmHWM, reset between stages through /proc/self/clear_refs).
 * Figures only; nothing asserts a time.
 *
 *   bun bench/nsys-bench.ts [--kernels 1000000[,3000000]] [--baseline-cli ../main/src/cli/main.ts]
 *       [--cap-mib 512] [--stages] [--keep]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchWorkspace, runTimed, type TimedRun } from "./measure-process.ts";
import { generateNsysExport } from "../fixtures/generators/nsys-sqlite.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../src/adapters/adapter.ts";
import { collectChunks } from "../src/adapters/common/collect-chunks.ts";
import { eventBatches } from "../src/adapters/nsys-sqlite/event-batches.ts";
import { NsysRowReader } from "../src/adapters/nsys-sqlite/nsys-rows.ts";
import { readHeldEvents } from "../src/adapters/nsys-sqlite/read-events.ts";
import { sortedEventBatches, sortedReadPlan } from "../src/adapters/nsys-sqlite/sorted-events.ts";
import {
  openUntrustedSqlite,
  openUntrustedSqliteFile,
} from "../src/adapters/sqlite/untrusted-database.ts";
import type { ColumnBatch } from "../src/domain/column-batch.ts";
import { startEncodePool } from "../workers/encode-pool.ts";
import { MemoryGovernor } from "../workers/memory-governor.ts";
import { openPayload } from "../workers/payload-stream.ts";
import { FileSpillSpace } from "../workers/spill-space.ts";
import { TableParts } from "../workers/table-parts.ts";

const { values } = parseArgs({
  options: {
    kernels: { type: "string", default: "1000000" },
    "baseline-cli": { type: "string" },
    "cap-mib": { type: "string" },
    stages: { type: "boolean", default: false },
    /** Internal: one path's stages over one file, in a fresh process (see --stages). */
    "stage-run": { type: "string" },
    file: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const MB = 1024 * 1024;
const repo = resolve(import.meta.dir, "..");
const clis: [string, string][] = [["this checkout", join(repo, "src", "cli", "main.ts")]];
if (values["baseline-cli"]) clis.push(["baseline", resolve(values["baseline-cli"])]);
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));
const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);

type Run = TimedRun;

function measure(argv: string[], cwd = dir): Promise<Run> {
  return runTimed(argv, cwd);
}

/** The floor: the kernel and runtime rows read with bun:sqlite, nothing else done. */
function plainRead(path: string): { ms: number; calls: number; busy: number } {
  const started = performance.now();
  const db = new Database(path, { readonly: true });
  let busy = 0;
  for (const r of db
    .query("SELECT start, end, streamId, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL")
    .iterate() as Iterable<{ start: number; end: number }>)
    busy += r.end - r.start;
  let calls = 0;
  for (const _ of db
    .query("SELECT start, end, globalTid, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    .iterate())
    calls++;
  db.close();
  return { ms: performance.now() - started, calls, busy };
}

async function importWith(cli: string, workspace: string, path: string): Promise<void> {
  let run: Run;
  try {
    run = await measure([process.execPath, cli, "import", path, "--json"], workspace);
  } catch (error) {
    // A failed import is a figure too (a worker over its memory cap).
    const text = String((error as Error).message);
    const code = /"code":\s*"([A-Z_]+)"/.exec(text)?.[1] ?? "failed";
    console.log(
      `    import failed: ${code}: ` +
        `${text.slice(text.indexOf("Cannot"), text.indexOf("Cannot") + 160)}`,
    );
    return;
  }
  const result = JSON.parse(run.stdout);
  const worker = result.extraction.worker;
  const stages = worker.stages_ms ?? {};
  console.log(
    `    ${f0(run.wallMs)} ms end to end, CPU ${f1(run.cpuMs / 1000)} s; worker peak \
${f0((worker.max_rss_bytes ?? 0) / MB)} MiB (cap \
${worker.memory_cap_bytes ? `${f0(worker.memory_cap_bytes / MB)} MiB` : "none"}), encode threads \
${worker.encode_threads}; ${result.extraction.status}, rows ${Object.entries(
      result.extraction.tables,
    )
      .map(([t, n]) => `${t}=${n}`)
      .join(" ")}`,
  );
  if (stages.total !== undefined)
    console.log(
      `      worker stages (ms): start ${f0(stages.start)}, ` +
        `open/detect ${f0(stages.open_detect)}, extract ${f0(stages.extract)} (of it encoding ` +
        `on the main thread ${f0(stages.encode_inline)}; on the encode ` +
        `thread ${f0(stages.encode_thread)}, overlapped); ` +
        `registration ${f0(result.registration_ms ?? Number.NaN)}, ` +
        `publish ${f0(result.extraction.publish_ms)}`,
    );
}

/** In-process stage timer: time and peak RSS (VmHWM, reset after each stage) per stage. */
class Stages {
  private last = performance.now();
  private lastCpu = process.cpuUsage();
  private readonly lines: string[] = [];
  private readonly canReset: boolean;
  constructor() {
    this.canReset = reset();
  }
  mark(name: string): void {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    const status = readFileSync("/proc/self/status", "latin1");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
    this.lines.push(
      `      ${name.padEnd(58)} ${f0(now - this.last).padStart(6)} ms, ` +
        `CPU ${f0((cpu.user + cpu.system) / 1000).padStart(6)} ms;  RSS ` +
        `after ${f0((kb("VmRSS") * 1024) / MB).padStart(5)} MiB, ` +
        `peak ${this.canReset ? "in stage" : "so far"} ` +
        `${f0((kb("VmHWM") * 1024) / MB).padStart(5)} MiB`,
    );
    reset();
    this.last = performance.now();
    this.lastCpu = process.cpuUsage();
  }
  print(title: string): void {
    console.log(`    ${title}`);
    for (const line of this.lines) console.log(line);
  }
}

function reset(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** Writes batches as the parse worker does: Parquet parts, on the encode thread. */
async function partWriter(out: string, governor: MemoryGovernor) {
  const pool = startEncodePool(true);
  const provenance = {
    schema_version: 1,
    run_id: "bench",
    artifact_id: "bench",
    evidence_generation_id: "bench",
    extractor_name: "nsys-sqlite",
    extractor_version: "bench",
  };
  const parts = new TableParts("trace_events", out, provenance, pool.encode, () =>
    governor.checkpoint(),
  );
  return {
    add: async (batch: ColumnBatch) => {
      governor.checkpoint();
      await parts.add(batch);
    },
    finish: async () => {
      await parts.finish();
      await pool.close();
    },
  };
}

async function stagesHeld(path: string): Promise<void> {
  const out = mkdtempSync(join(dir, "held-"));
  const governor = new MemoryGovernor(8 * 1024 * MB);
  Bun.gc(true);
  const stages = new Stages();
  const payload = await openPayload(path, Number.MAX_SAFE_INTEGER, 64 * 1024, () =>
    governor.checkpoint(),
  );
  const bytes = await collectChunks(payload.chunks);
  stages.mark("payload collected in memory");
  const { db, schema } = openUntrustedSqlite(bytes, "bench");
  stages.mark("deserialized (SQLite's own copy)");
  const read = readHeldEvents(new NsysRowReader(db, schema, "bench", 50_000_000));
  stages.mark(`every event read and held (${read.events.length})`);
  const writer = await partWriter(out, governor);
  for (const batch of eventBatches(read, DEFAULT_ADAPTER_LIMITS.maxArgsBytes))
    await writer.add(batch);
  await writer.finish();
  stages.mark("sorted in memory, rows built, Parquet encoded");
  db.close();
  stages.print("held path (as before), in a process of its own:");
}

async function stagesSorted(path: string): Promise<void> {
  const out = mkdtempSync(join(dir, "sorted-"));
  const governor = new MemoryGovernor(8 * 1024 * MB);
  Bun.gc(true);
  const stages = new Stages();
  const payload = await openPayload(path, Number.MAX_SAFE_INTEGER, 64 * 1024, () =>
    governor.checkpoint(),
  );
  const spill = new FileSpillSpace(out);
  const file = spill.create();
  for await (const chunk of payload.chunks) file.append(chunk);
  stages.mark("payload spooled to a spill file");
  const { db, schema } = openUntrustedSqliteFile(file.path!, "bench");
  db.run("PRAGMA cache_size = -8192");
  db.run("PRAGMA temp_store = FILE");
  const reader = new NsysRowReader(db, schema, "bench", 50_000_000);
  stages.mark("opened; small tables read");
  const plan = sortedReadPlan(reader);
  if (!plan.sortable) throw new Error(`not sortable: ${plan.reason}`);
  stages.mark("plan: track ids checked (SELECT DISTINCT per table)");
  const writer = await partWriter(out, governor);
  const batches = sortedEventBatches(reader, plan, DEFAULT_ADAPTER_LIMITS.maxArgsBytes);
  const first = batches.next();
  stages.mark("SQLite sorts each table (to the first row)");
  if (!first.done) await writer.add(first.value);
  for (const batch of batches) await writer.add(batch);
  await writer.finish();
  stages.mark(`rows read in order, built, Parquet encoded (${reader.kept})`);
  db.close();
  spill.disposeAll();
  stages.print("read in order from SQLite (this checkout), in a process of its own:");
}

if (values["stage-run"]) {
  try {
    if (values["stage-run"] === "held") await stagesHeld(values.file!);
    else await stagesSorted(values.file!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

try {
  console.log(
    `load average ` +
      `${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}; ` +
      `${navigator.hardwareConcurrency} cores`,
  );
  const workspaces = new Map<string, string>();
  const cap = values["cap-mib"] ? Number(values["cap-mib"]) * MB : undefined;
  for (const [, cli] of clis) workspaces.set(cli, await benchWorkspace(dir, cli, cap));
  for (const kernels of values.kernels.split(",").map(Number)) {
    const path = join(dir, `report-${kernels}.sqlite`);
    generateNsysExport(path, { kernels });
    const floor = plainRead(path);
    console.log(
      `\n== Nsight Systems export: ${kernels} kernels + ${floor.calls} runtime ` +
        `calls, ${f0(statSync(path).size / MB)} MB; kernel busy ${floor.busy} ns`,
    );
    console.log(
      `  bun:sqlite read of the kernel and runtime rows (floor, in this ` +
        `process): ${f0(floor.ms)} ms`,
    );
    for (const [name, cli] of clis) {
      console.log(`  import, ${name}:`);
      await importWith(cli, workspaces.get(cli)!, path);
    }
    if (values.stages)
      for (const run of ["sorted", "held"]) {
        const child = await measure([
          process.execPath,
          import.meta.path,
          "--stage-run",
          run,
          "--file",
          path,
        ]);
        process.stdout.write(child.stdout);
      }
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
