/**
 * Parquet encoding benchmark: µs per row and file size of one Parquet part under several
 * writer settings, next to the current settings, on the same data in one run. The data
 * is one part (up to 256Ki rows) of the big tables of real imports of generated inputs:
 * trace_events (Chrome trace), otel_spans (OTLP protobuf), frames / frame_measurements /
 * stacks (cpuprofile). Each setting's time is the whole hand-over: Arrow JS table → IPC
 * stream → parquet-wasm table → Parquet bytes. Figures only.
 *
 *   bun bench/parquet-encode-bench.ts [--tables trace_events,otel_spans,...] [--repeat 3] [--dir
 *   /tmp/flameox-parquet-bench]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Table, tableToIPC } from "apache-arrow";
import {
  Compression,
  EnabledStatistics,
  Table as WasmTable,
  WriterPropertiesBuilder,
  readParquet as wasmReadParquet,
  writeParquet as wasmWriteParquet,
  wasmMemory,
  WriterVersion,
} from "parquet-wasm/esm";
import { generateChromeTrace } from "../fixtures/generators/chrome-trace.ts";
import { generateCpuProfile } from "../fixtures/generators/cpuprofile.ts";
import { generateOtlpProto } from "../fixtures/generators/otlp-proto.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../src/adapters/adapter.ts";
import { adapterByName } from "../src/adapters/registry.ts";
import {
  DICTIONARY_COLUMNS,
  initParquet,
  parquetWriterProperties,
  writeParquet,
} from "../src/storage/parquet.ts";
import { columnBatchesToTable } from "../src/storage/column-batch-arrow.ts";
import { extractTables } from "../workers/extract-tables.ts";
import { openPayload } from "../workers/payload-stream.ts";

const { values } = parseArgs({
  options: {
    tables: { type: "string", default: "trace_events,otel_spans,frames,frame_measurements,stacks" },
    repeat: { type: "string", default: "3" },
    dir: { type: "string", default: join(tmpdir(), "flameox-parquet-bench") },
  },
});
const MB = 1024 * 1024;
const repeat = Number(values.repeat);
const wanted = new Set(values.tables!.split(","));
mkdirSync(values.dir!, { recursive: true });

/** Inputs are generated once and kept in --dir (generation takes longer than the bench). */
async function input(name: string, generate: (path: string) => Promise<unknown>): Promise<string> {
  const path = join(values.dir!, name);
  if (!existsSync(path)) await generate(path);
  return path;
}

/** The first part of each table of an import, as the Arrow tables the part writer encodes. */
async function firstParts(adapterName: string, path: string): Promise<Map<string, Table>> {
  const adapter = adapterByName(adapterName)!;
  const out = mkdtempSync(join(tmpdir(), "flameox-parquet-bench-out-"));
  const parts = new Map<string, Table>();
  try {
    const payload = await openPayload(path, 8 << 30, 64 * 1024);
    await extractTables(adapter, payload, {
      displayName: path,
      limits: {
        maxEvents: DEFAULT_ADAPTER_LIMITS.maxEvents,
        maxNestingDepth: DEFAULT_ADAPTER_LIMITS.maxNestingDepth,
        maxArgsBytes: DEFAULT_ADAPTER_LIMITS.maxArgsBytes,
      },
      outputDir: out,
      provenance: {
        schema_version: 1,
        run_id: "run_bench",
        artifact_id: "art_bench",
        evidence_generation_id: "gen_bench",
        extractor_name: adapter.name,
        extractor_version: adapter.version,
      },
      encode: async (part) => {
        if (!parts.has(part.table))
          parts.set(part.table, columnBatchesToTable(part.table, part.provenance, part.batches));
      },
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return parts;
}

type Setting = { label: string; props: () => ReturnType<WriterPropertiesBuilder["build"]> };

interface Variant {
  codec?: Compression;
  version?: WriterVersion;
  statistics?: EnabledStatistics;
  /** "listed": parquet.ts's DICTIONARY_COLUMNS only. */
  dictionary?: "listed" | "all" | "none";
  pageBytes?: number;
  rowGroupRows?: number;
}

/** A full setting, spelled out (arrow-rs defaults: page statistics, 1 MiB pages, v1 pages). */
function variant(v: Variant): () => ReturnType<WriterPropertiesBuilder["build"]> {
  return () => {
    let b = new WriterPropertiesBuilder()
      .setCompression(v.codec ?? Compression.ZSTD)
      .setWriterVersion(v.version ?? WriterVersion.V1)
      .setStatisticsEnabled(v.statistics ?? EnabledStatistics.Page)
      .setMaxRowGroupSize(v.rowGroupRows ?? 1 << 20)
      .setDictionaryEnabled(v.dictionary === "all");
    if ((v.dictionary ?? "listed") === "listed")
      for (const column of DICTIONARY_COLUMNS) b = b.setColumnDictionaryEnabled(column, true);
    if (v.pageBytes) b = b.setDataPageSizeLimit(v.pageBytes);
    return b.build();
  };
}

const { SNAPPY, LZ4_RAW, UNCOMPRESSED } = Compression;
const { V2 } = WriterVersion;
const { None, Chunk, Page } = EnabledStatistics;

function settings(): Setting[] {
  return [
    { label: "current settings (parquet.ts)", props: () => parquetWriterProperties() },
    { label: "previous: zstd, v1 pages, page statistics", props: variant({}) },
    { label: "zstd, v1, chunk statistics", props: variant({ statistics: Chunk }) },
    { label: "zstd, v1, no statistics", props: variant({ statistics: None }) },
    {
      label: "zstd, v1, page statistics, dictionary on every column",
      props: variant({ dictionary: "all" }),
    },
    { label: "zstd, v1, page statistics, no dictionary", props: variant({ dictionary: "none" }) },
    { label: "snappy, v1, page statistics", props: variant({ codec: SNAPPY }) },
    { label: "lz4_raw, v1, page statistics", props: variant({ codec: LZ4_RAW }) },
    { label: "uncompressed, v1, page statistics", props: variant({ codec: UNCOMPRESSED }) },
    { label: "snappy, v1, no statistics", props: variant({ codec: SNAPPY, statistics: None }) },
    { label: "zstd, v1, page statistics, 8 MiB data pages", props: variant({ pageBytes: 8 * MB }) },
    {
      label: "zstd, v1, page statistics, 64Ki-row row groups",
      props: variant({ rowGroupRows: 1 << 16 }),
    },
    { label: "zstd, v2 pages, page statistics", props: variant({ version: V2, statistics: Page }) },
    { label: "zstd, v2, chunk statistics", props: variant({ version: V2, statistics: Chunk }) },
    { label: "zstd, v2, no statistics", props: variant({ version: V2, statistics: None }) },
    {
      label: "snappy, v2, no statistics",
      props: variant({ codec: SNAPPY, version: V2, statistics: None }),
    },
    {
      label: "lz4_raw, v2, no statistics",
      props: variant({ codec: LZ4_RAW, version: V2, statistics: None }),
    },
  ];
}

/**
 * Best of `repeat` runs, in ms of this process's CPU time: the encoding is single-threaded,
 * and CPU time does not count the time other processes take from a shared machine.
 */
function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

function timeIt(fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) best = Math.min(best, cpuMs(fn));
  return best;
}

function encodeWith(
  ipc: Uint8Array,
  props: ReturnType<WriterPropertiesBuilder["build"]>,
): Uint8Array {
  const table = WasmTable.fromIPCStream(ipc);
  return wasmWriteParquet(table, props);
}

const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number, d = 2) => n.toFixed(d).padStart(8);

await initParquet();
const sources: [string, string, () => Promise<string>][] = [
  [
    "trace_events",
    "chrome-trace",
    () => input("chrome-60.trace.json", (p) => generateChromeTrace(p, 60 * MB)),
  ],
  ["otel_spans", "otlp-protobuf", () => input("otlp-40.pb", (p) => generateOtlpProto(p, 40 * MB))],
  [
    "frames,frame_measurements,stacks",
    "v8-cpuprofile",
    () => input("gen-20.cpuprofile", (p) => generateCpuProfile(p, 20 * MB)),
  ],
];
for (const [tables, adapter, path] of sources) {
  if (!tables.split(",").some((t) => wanted.has(t))) continue;
  const parts = await firstParts(adapter, await path());
  for (const name of tables.split(",")) {
    const table = parts.get(name);
    if (!wanted.has(name) || !table) continue;
    const rows = table.numRows;
    let ipc: Uint8Array = new Uint8Array(0);
    const toIpc = timeIt(() => void (ipc = tableToIPC(table, "stream")));
    const fromIpc = timeIt(() => WasmTable.fromIPCStream(ipc).free());
    console.log(
      `\n${name}: ${rows} rows, ${table.numCols} columns; Arrow ` +
        `IPC ${(ipc.length / MB).toFixed(1)} MB: ` +
        `tableToIPC ${((toIpc * 1000) / rows).toFixed(2)} µs/row, ` +
        `fromIPCStream ${((fromIpc * 1000) / rows).toFixed(2)} µs/row`,
    );
    console.log(
      `${pad("setting", 58)} ${"µs/row".padStart(8)} ${"vs now".padStart(8)} ` +
        `${"MB".padStart(8)} ${"size".padStart(8)} ${"read µs".padStart(8)}   reads back`,
    );
    // Rounds interleave the settings, so a burst of load on a shared machine does not land on one
    // setting only.
    const list = settings();
    const best = list.map(() => Infinity);
    const sizes = list.map(() => 0);
    const readable = list.map(() => "yes");
    const reads = list.map(() => Infinity);
    for (let round = 0; round < repeat; round++) {
      list.forEach((s, i) => {
        let bytes: Uint8Array = new Uint8Array(0);
        best[i] = Math.min(
          best[i]!,
          cpuMs(() => void (bytes = encodeWith(tableToIPC(table, "stream"), s.props()))),
        );
        sizes[i] = bytes.length;
        // Reading back as the analysis engine does (Parquet → Arrow IPC for DuckDB-WASM).
        reads[i] = Math.min(
          reads[i]!,
          cpuMs(() => void wasmReadParquet(bytes, { batchSize: 1 << 16 }).intoIPCStream()),
        );
        if (round > 0) return;
        try {
          const back = wasmReadParquet(bytes);
          const n = back.recordBatches().reduce((sum, b) => sum + b.numRows, 0);
          back.free();
          if (n !== rows) readable[i] = `${n} rows`;
        } catch (error) {
          readable[i] = `no: ${(error as Error).message.slice(0, 60)}`;
        }
      });
    }
    const baseUs = (best[0]! * 1000) / rows;
    list.forEach((s, i) => {
      const us = (best[i]! * 1000) / rows;
      console.log(
        `${pad(s.label, 58)} ${num(us)} ${num(us / baseUs)}x ${num(sizes[i]! / MB, 1)} ` +
          `${num(sizes[i]! / sizes[0]!)}x ${num((reads[i]! * 1000) / rows)}   ${readable[i]}`,
      );
    });
    // The production entry point, for reference (same as "current settings").
    const ms = timeIt(() => void writeParquet(table));
    console.log(
      `${pad("writeParquet() as the part writer calls it", 58)} ${num((ms * 1000) / rows)}`,
    );
  }
}
console.log(
  `\nparquet-wasm linear memory after the ` +
    `run: ${(wasmMemory().buffer.byteLength / MB).toFixed(0)} MB`,
);
