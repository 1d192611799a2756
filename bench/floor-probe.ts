/**
 * One stage of an import, alone and with nothing else to do, in a fresh process (for
 * bench/pipeline-floor.ts). Prints one JSON line.
 *
 *   bun bench/floor-probe.ts scan chrome|cpuprofile|otlp|perfetto FILE
 *     the format's WASM scanner over the file as the worker reads it (the same program and
 *     options), its records handed to a callback that does nothing: the cost of reading and
 *     tokenizing, without any per-record work (compiling the scanner counted apart).
 *   bun bench/floor-probe.ts encode EVIDENCE_DIR GENERATION_ID
 *     parquet-wasm encoding each of the generation's parts again, from Arrow IPC of the
 *     columns the import wrote (provenance lives in the file's metadata, as in the import),
 *     with the import's writer settings; per table, in ms, after one untimed warm-up part.
 *   bun bench/floor-probe.ts register FILE STAGING_DIR
 *     the store's one-pass copy, hash and fsync of the file (stageArtifact), then removed.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { traceProgram } from "../src/adapters/chrome-trace/trace-program.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../src/adapters/adapter.ts";
import { otlpProgram } from "../src/adapters/otlp/otlp-proto-program.ts";
import { perfettoProgram } from "../src/adapters/perfetto/trace-program.ts";
import { profileProgram } from "../src/adapters/v8-cpuprofile/profile-program.ts";
import { JsonScanner } from "../src/adapters/wasm/json-scanner.ts";
import { ProtoScanner } from "../src/adapters/wasm/proto-scanner.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../src/domain/evidence-schema.ts";
import { stageArtifact } from "../src/storage/cas.ts";
import { initParquet, parquetToIpcStream, writeParquetFromIpc } from "../src/storage/parquet.ts";

const [stage, ...args] = process.argv.slice(2);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** The scan's own time; compiling the scanner (`openMs`) is counted apart. */
async function scan(kind: string, path: string): Promise<Record<string, number>> {
  const maxDepth = DEFAULT_ADAPTER_LIMITS.maxNestingDepth;
  const nothing = () => {};
  const opening = performance.now();
  const json = kind === "chrome" || kind === "cpuprofile";
  const scanner = json
    ? await JsonScanner.open(kind === "chrome" ? traceProgram() : profileProgram(), {
        format: kind,
        maxDepth,
        truncateJsonAt: DEFAULT_ADAPTER_LIMITS.maxArgsBytes,
      })
    : await ProtoScanner.open(kind === "otlp" ? otlpProgram() : perfettoProgram(), {
        format: kind,
        maxDepth,
      });
  const openMs = performance.now() - opening;
  const started = performance.now();
  const cpu = process.cpuUsage();
  if (scanner instanceof JsonScanner)
    await scanner.scanChunks(Bun.file(path).stream(), nothing, kind === "chrome");
  else {
    for await (const chunk of Bun.file(path).stream()) scanner.push(chunk, nothing);
    scanner.finish(nothing);
  }
  return { ms: performance.now() - started, cpuMs: cpuMs(cpu), openMs };
}

/** Per table; parquet-wasm is set up and warmed on the first part first, untimed. */
async function encode(evidenceDir: string, generationId: string): Promise<Record<string, number>> {
  await initParquet();
  const ms: Record<string, number> = {};
  let warm = false;
  for (const table of readdirSync(evidenceDir) as EvidenceTableName[]) {
    const columns = EVIDENCE_SCHEMAS[table]?.columns.map((c) => c.name);
    if (!columns) continue;
    const dir = join(evidenceDir, table, generationId);
    let parts: string[];
    try {
      parts = readdirSync(dir);
    } catch {
      continue;
    }
    ms[table] = 0;
    for (const part of parts) {
      const ipc = parquetToIpcStream(readFileSync(join(dir, part)), columns);
      if (!warm) {
        writeParquetFromIpc(ipc);
        warm = true;
      }
      const started = performance.now();
      writeParquetFromIpc(ipc);
      ms[table] += performance.now() - started;
    }
  }
  return ms;
}

async function register(path: string, stagingDir: string): Promise<Record<string, number>> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const staged = await stageArtifact(path, join(stagingDir, `floor-${process.pid}`), {
    maxBytes: Number.MAX_SAFE_INTEGER,
  });
  const figures = { ms: performance.now() - started, cpuMs: cpuMs(cpu) };
  rmSync(staged.stagedPath, { force: true });
  return figures;
}

const figures =
  stage === "scan"
    ? await scan(args[0]!, args[1]!)
    : stage === "encode"
      ? await encode(args[0]!, args[1]!)
      : stage === "register"
        ? await register(args[0]!, args[1]!)
        : null;
if (!figures) throw new Error(`unknown stage ${stage}: scan, encode or register`);
console.log(JSON.stringify(figures));
