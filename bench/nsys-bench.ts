/**
 * Nsight Systems export benchmark. Generates, deterministically, an export with N kernels
 * (default 1,000,000) over 4 streams, each launched by a cudaLaunchKernel call on one host
 * thread (same correlation id), and prints: end-to-end import time and peak RSS of the CLI
 * process (file to committed generation), and as the baseline measured in the same run, a
 * plain bun:sqlite read of the kernel and runtime rows. Figures only; nothing asserts a time.
 *
 *   bun bench/nsys-bench.ts [--kernels 1000000] [--keep]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { measureProcess, workerPeak } from "./measure-process.ts";

const { values } = parseArgs({
  options: {
    kernels: { type: "string", default: "1000000" },
    keep: { type: "boolean", default: false },
  },
});
const KERNELS = Number(values.kernels);
const MB = 1024 * 1024;
const cliPath = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));
const PID = 4242;
const GLOBAL_TID = PID * 2 ** 24 + PID;
const GLOBAL_PID = PID * 2 ** 24;

function writeExport(path: string): void {
  const db = new Database(path);
  db.run("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
  db.run("CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT)");
  db.run("CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)");
  db.run("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)");
  db.run(
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER)",
  );
  db.run(
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL)",
  );
  db.run("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'main')");
  for (let k = 0; k < 50; k++)
    db.query("INSERT INTO StringIds VALUES (?, ?), (?, ?)").run(
      100 + k,
      `kernel_${k}`,
      200 + k,
      `void kernel_${k}<float, 256>(float const*, float*, int)`,
    );
  db.run("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100')");
  db.query("INSERT INTO ThreadNames VALUES (2, 0, ?)").run(GLOBAL_TID);
  db.run(
    "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.5.1.113'), ('EXPORT_SCHEMA_VERSION', '3.13.2')",
  );
  db.transaction(() => {
    const kernel = db.query(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, 128, 1, 1, 256, 1, 1, 32)",
    );
    const launch = db.query("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 1, 0)");
    for (let i = 0; i < KERNELS; i++) {
      const t = 1_000_000 + i * 2_000;
      launch.run(t, t + 900, GLOBAL_TID, i + 1);
      kernel.run(
        t + 1_500 + (i % 4) * 10,
        t + 1_500 + (i % 4) * 10 + 400 + (i % 50) * 10,
        7 + (i % 4),
        i + 1,
        GLOBAL_PID,
        200 + (i % 50),
        100 + (i % 50),
      );
    }
  })();
  db.close();
}

const measure = (argv: string[]) => measureProcess(argv, dir);

try {
  const path = join(dir, "report.sqlite");
  writeExport(path);
  const bytes = statSync(path).size;
  const baselineStart = performance.now();
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
  const baselineMs = performance.now() - baselineStart;
  await measure([process.execPath, cliPath, "init", dir, "--json"]);
  const imported = await measure([process.execPath, cliPath, "import", path, "--json"]);
  const summary = JSON.parse(imported.stdout).extraction;
  console.log(
    `Nsight Systems export: ${KERNELS} kernels + ${calls} runtime calls, ${(bytes / MB).toFixed(0)} MB; kernel busy ${busy} ns`,
  );
  console.log(
    `  bun:sqlite read of kernel and runtime rows (baseline, in process): ${baselineMs.toFixed(0)} ms`,
  );
  console.log(
    `  import (CLI process, file to committed generation): ${imported.wallMs.toFixed(0)} ms, peak RSS ${(imported.maxRss / MB).toFixed(0)} MB (maxRSS, which Linux raises to this benchmark's own size at the spawn), parse worker's own peak ${(workerPeak(imported.stdout) / MB).toFixed(0)} MB; ${summary.status}`,
  );
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
