/**
 * Tinypool thread: encodes one Parquet part, from the part's column batches (their
 * buffers transferred) or from an Arrow IPC stream, and writes it. CPU
 * work that needs no isolation (the bytes came from this worker process), run on the
 * second core while the parser keeps going on the first. The file is written here, so
 * the encoded bytes never cross back to the parser's heap.
 */
import type { ColumnBatch } from "../src/domain/column-batch.ts";
import type { EvidenceTableName } from "../src/domain/evidence-schema.ts";
import {
  initParquet,
  type Provenance,
  writeParquet,
  writeParquetFromIpc,
} from "../src/storage/parquet.ts";
import { columnBatchesToTable, writeSynced } from "./table-parts.ts";

type PartMessage = {
  path: string;
  module?: WebAssembly.Module;
  /** Counts the parts this thread has finished, read by the parser without a message. */
  finished?: Int32Array;
} & (
  | { ipc: Uint8Array }
  | { ipc: undefined; table: EvidenceTableName; provenance: Provenance; batches: ColumnBatch[] }
);

export default async function encodePart(message: PartMessage): Promise<number> {
  try {
    // The parse worker's compiled module: instantiated here, not compiled a second time.
    await initParquet(message.module);
    const { path } = message;
    const bytes =
      message.ipc !== undefined
        ? writeParquetFromIpc(message.ipc)
        : writeParquet(columnBatchesToTable(message.table, message.provenance, message.batches));
    writeSynced(path, bytes);
    // This thread has its own heap, which the parser's collections do not reach: each part
    // leaves its IPC stream and encoded copy behind, tens of MB that would otherwise pile up.
    Bun.gc(true);
    return bytes.length;
  } finally {
    // Failed or not, the part no longer holds the thread.
    if (message.finished) Atomics.add(message.finished, 0, 1);
  }
}
