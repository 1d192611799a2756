/**
 * Parquet encode/decode for evidence tables, through parquet-wasm (Rust arrow-rs in WASM).
 *
 * Arrow data crosses into and out of WASM as IPC stream bytes: that is parquet-wasm's
 * interface, and it is also what DuckDB-WASM accepts, so `parquetToIpcStream` hands the
 * engine a file's contents without materialising JS Arrow objects at all.
 */
// apache-arrow's build without its Node stream adapters (the package's main entry adds them,
// and with them node:stream, ~15 ms of every process start); the classes are the same.
// Every module under src/ and workers/ imports it this way.
import { type Table, tableFromIPC, tableToIPC } from "apache-arrow/Arrow.dom";
// The ESM build, initialised from bytes: the default node build resolves its .wasm through an
// absolute path baked in at build time, which breaks once a compiled binary is moved.
import {
  Compression,
  EnabledStatistics,
  ParquetFile,
  WriterVersion,
  Table as WasmTable,
  WriterPropertiesBuilder,
  type WriterProperties,
  initSync,
  readParquet as wasmReadParquet,
  writeParquet as wasmWriteParquet,
} from "parquet-wasm/esm";
import { EVIDENCE_SCHEMAS } from "../domain/evidence-schema.ts";
import { compiledParquetModule } from "./parquet-module.ts";
import { IpcScratch } from "./ipc-into.ts";
import { provenanceOf, withProvenance } from "./evidence-provenance.ts";

export { tableBufferToArrow, evidenceArrowSchema, type Provenance } from "./parquet-arrow.ts";
export { parquetRowCount } from "./parquet-footer.ts";
export { compiledParquetModule } from "./parquet-module.ts";

/**
 * Rows per Parquet row group (arrow-rs's default). Files are always read whole, so small
 * groups buy nothing; measured on 1M trace_events rows, 128Ki-row groups made the file
 * 1.9x larger (per-group dictionaries) at the same write time.
 */
const ROW_GROUP_ROWS = 1 << 20;
/** Rows per Arrow batch when decoding (parquet-wasm's default of 1024 makes tiny batches). */
const READ_BATCH_ROWS = 1 << 16;

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

function assertReady(): void {
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

/** This thread's IPC stream buffer: parquet-wasm copies the stream in, so one serves every part. */
const ipcScratch = new IpcScratch();

/** Encodes an Arrow table as one Parquet file (parquetWriterBuilder's settings). */
export function writeParquet(table: Table): Uint8Array {
  // Arrow JS objects cannot cross into WASM; the IPC stream is the hand-over format.
  return writeParquetFromIpc(ipcScratch.write(table));
}

/** The same, from an Arrow IPC stream (what a thread that did not build the table receives). */
export function writeParquetFromIpc(ipc: Uint8Array): Uint8Array {
  assertReady();
  const props = parquetWriterProperties();
  const wasmTable = WasmTable.fromIPCStream(ipc);
  try {
    return wasmWriteParquet(wasmTable, props);
  } finally {
    freeQuietly(wasmTable);
  }
}

/**
 * Decodes a Parquet file to an Arrow IPC stream, optionally only the named columns.
 *
 * parquet-wasm 0.8's synchronous reader ignores its `columns` option (only the async
 * ParquetFile reader honours it), so projection happens after a full decode. Provenance
 * columns are rebuilt from the file's metadata (evidence-provenance.ts).
 */
export function parquetToIpcStream(bytes: Uint8Array, columns?: readonly string[]): Uint8Array {
  const ipc = decodeAll(bytes);
  const table = tableFromIPC(ipc);
  const complete = withProvenance(table, columns);
  return complete === table ? ipc : tableToIPC(complete, "stream");
}

/**
 * Decodes a Parquet file to an Arrow table, optionally only the named columns (see
 * `withProvenance`).
 */
export function readParquet(bytes: Uint8Array, columns?: readonly string[]): Table {
  return withProvenance(tableFromIPC(decodeAll(bytes)), columns);
}

/**
 * Decodes only the named columns (those the file has) to an Arrow table, through the async
 * reader, which honours projection. Besides decoding less, the table then owns only those
 * columns' memory: a table projected after a full decode keeps views into the whole
 * decoded file (per-row provenance strings included), 2-3x the bytes of what it shows.
 */
export async function readParquetColumns(
  bytes: Uint8Array,
  columns: readonly string[],
): Promise<Table> {
  assertReady();
  const file = await ParquetFile.fromFile(new Blob([bytes]));
  try {
    const schema = file.schema();
    const present = columns.filter((name) => hasField(schema, name));
    // The projected read drops the schema's metadata, where the file's provenance is.
    const provenance = provenanceOf(schema.metadata());
    schema.free();
    // No asked-for column in the file: only its row count matters, which a full decode keeps.
    if (present.length === 0) return readParquet(bytes, columns);
    return withProvenance(
      tableFromIPC(
        (await file.read({ columns: present, batchSize: READ_BATCH_ROWS })).intoIPCStream(),
      ),
      columns,
      provenance,
    );
  } finally {
    file.free();
  }
}

/** parquet-wasm's `indexOf` throws for a name the schema lacks rather than returning -1. */
function hasField(schema: { indexOf(name: string): number }, name: string): boolean {
  try {
    return schema.indexOf(name) >= 0;
  } catch {
    return false;
  }
}

function decodeAll(bytes: Uint8Array): Uint8Array {
  assertReady();
  // intoIPCStream consumes (and frees) the WASM-side table.
  return wasmReadParquet(bytes, { batchSize: READ_BATCH_ROWS }).intoIPCStream();
}

function freeQuietly(table: WasmTable): void {
  try {
    table.free();
  } catch {
    // writeParquet may already have consumed it; nothing left to release.
  }
}
