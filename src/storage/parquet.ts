/**
 * Parquet decode (and encode of Arrow tables) for evidence tables, through parquet-wasm (Rust
 * arrow-rs in WASM); the encoder's set-up and settings are in parquet-writer.ts.
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
import { ParquetFile, readParquet as wasmReadParquet } from "parquet-wasm/esm";
import { assertParquetReady, writeParquetFromIpc } from "./parquet-writer.ts";
import { provenanceOf, withProvenance } from "./evidence-provenance.ts";

export { tableBufferToArrow, evidenceArrowSchema, type Provenance } from "./parquet-arrow.ts";
export { parquetRowCount } from "./parquet-footer.ts";
export { compiledParquetModule } from "./parquet-module.ts";
export {
  DICTIONARY_COLUMNS,
  initParquet,
  parquetWriterBuilder,
  parquetWriterProperties,
  writeParquetFromIpc,
} from "./parquet-writer.ts";

/** Rows per Arrow batch when decoding (parquet-wasm's default of 1024 makes tiny batches). */
const READ_BATCH_ROWS = 1 << 16;

/**
 * Encodes an Arrow table as one Parquet file (parquetWriterBuilder's settings), for callers that
 * hold one (tests, benchmarks); the parse worker writes its parts' streams without Arrow tables
 * (arrow-ipc-stream.ts).
 */
export function writeParquet(table: Table): Uint8Array {
  // Arrow JS objects cannot cross into WASM; the IPC stream is the hand-over format.
  return writeParquetFromIpc(tableToIPC(table, "stream"));
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
  assertParquetReady();
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
  assertParquetReady();
  // intoIPCStream consumes (and frees) the WASM-side table.
  return wasmReadParquet(bytes, { batchSize: READ_BATCH_ROWS }).intoIPCStream();
}
