/**
 * Parquet encoding of evidence parts through parquet-wasm (Rust arrow-rs in WASM), from an
 * Arrow IPC stream: parquet-wasm's interface. A module without apache-arrow, which the parse
 * worker never loads (it writes its streams with arrow-ipc-stream.ts); parquet.ts adds the
 * Arrow-table writer and the readers on the same instance.
 */
// The ESM build, initialised from bytes: the default node build resolves its .wasm through an
// absolute path baked in at build time, which breaks once a compiled binary is moved.
import {
  Compression,
  EnabledStatistics,
  WriterVersion,
  Table as WasmTable,
  WriterPropertiesBuilder,
  type WriterProperties,
  initSync,
  writeParquet as wasmWriteParquet,
} from "parquet-wasm/esm";
import { EVIDENCE_SCHEMAS } from "../domain/evidence-schema.ts";
import { compiledParquetModule } from "./parquet-module.ts";

/**
 * Rows per Parquet row group (arrow-rs's default). Files are always read whole, so small
 * groups buy nothing; measured on 1M trace_events rows, 128Ki-row groups made the file
 * 1.9x larger (per-group dictionaries) at the same write time.
 */
const ROW_GROUP_ROWS = 1 << 20;

let ready: Promise<void> | undefined;
let initialised = false;

/**
 * Instantiates parquet-wasm once (from `module` when one is handed over); later calls return the
 * same promise.
 */
export function initParquet(module?: WebAssembly.Module): Promise<void> {
  ready ??= (async () => {
    initSync({ module: module ?? (await compiledParquetModule()) });
    initialised = true;
  })().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

/** Throws unless `initParquet` has finished (parquet-wasm's calls need its instance). */
export function assertParquetReady(): void {
  if (!initialised) throw new Error("parquet-wasm is not initialised: await initParquet() first");
}

/**
 * Columns whose values repeat heavily (provenance constants, categories, thread names).
 * Dictionary encoding is enabled only for these: on high-cardinality columns (names,
 * ids, timestamps) it more than doubled encode time for little size gain (1M trace
 * events: 2.35 s with dictionaries everywhere, 1.03 s without, files 28% larger).
 */
export const DICTIONARY_COLUMNS = [
  "schema_version",
  "run_id",
  "artifact_id",
  "evidence_generation_id",
  "extractor_name",
  "extractor_version",
  "metric",
  "unit",
  "phase",
  "category",
  "track_id",
  "pid",
  "tid",
  "process_name",
  "thread_name",
  "language",
  "symbolization",
  "flags",
  // Event and span names repeat heavily in traces: measured on 258K generated trace events,
  // zstd with a `name` dictionary encoded in half the time (0.99 s vs 2.07 s), 20% smaller.
  "name",
  "kind",
  "status_code",
  // A stack's leaf is one of a trace's few hundred frames (a 200 MB Chrome trace: 522K stacks,
  // 400 frames); stacks writers hand it over as dictionary indices too (common/stack-chunks.ts).
  "leaf_frame_id",
];

/**
 * The writer settings of every evidence file; bench/parquet-encode-bench.ts measures the
 * alternatives on one part of trace_events and otel_spans. Against arrow-rs's defaults
 * (v1 pages, page statistics), v2 data pages (delta encodings where no dictionary is
 * used) without statistics encoded in 0.78-0.87x the time, into 0.83-0.89x the bytes,
 * and read back as fast or faster. Statistics buy nothing here: files are always read
 * whole (see ROW_GROUP_ROWS). zstd stays: snappy and lz4 saved another ~0.2 µs/row but
 * made files 1.5-2x larger.
 */
export function parquetWriterBuilder(): WriterPropertiesBuilder {
  // Dictionaries are on by default and off for every other top-level column of the evidence
  // schemas: a list's strings are a nested leaf (frame_ids.list.item), which parquet-wasm's
  // per-column setting cannot name, and the stacks' frame id lists need their dictionary most
  // (a 100 MB Chromium Perfetto trace: 2.7M items over 216 distinct ids).
  let builder = new WriterPropertiesBuilder()
    .setCompression(Compression.ZSTD)
    .setWriterVersion(WriterVersion.V2)
    .setStatisticsEnabled(EnabledStatistics.None)
    .setDictionaryEnabled(true)
    .setMaxRowGroupSize(ROW_GROUP_ROWS)
    .setCreatedBy("flameox");
  for (const column of PLAIN_COLUMNS) builder = builder.setColumnDictionaryEnabled(column, false);
  return builder;
}

/** Top-level columns of the evidence schemas stored without a dictionary (see above). */
const PLAIN_COLUMNS = [
  ...new Set(
    Object.values(EVIDENCE_SCHEMAS).flatMap((schema) =>
      schema.columns
        .filter((c) => c.type !== "list_utf8" && !DICTIONARY_COLUMNS.includes(c.name))
        .map((c) => c.name),
    ),
  ),
];

export function parquetWriterProperties(): WriterProperties {
  return parquetWriterBuilder().build();
}

/** Encodes an Arrow IPC stream as one Parquet file (parquetWriterBuilder's settings). */
export function writeParquetFromIpc(ipc: Uint8Array): Uint8Array {
  assertParquetReady();
  const props = parquetWriterProperties();
  const wasmTable = WasmTable.fromIPCStream(ipc);
  try {
    return wasmWriteParquet(wasmTable, props);
  } finally {
    freeQuietly(wasmTable);
  }
}

function freeQuietly(table: WasmTable): void {
  try {
    table.free();
  } catch {
    // writeParquet may already have consumed it; nothing left to release.
  }
}
