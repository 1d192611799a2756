/**
 * Tinypool thread: encodes one Parquet part from an Arrow IPC stream and writes it. CPU
 * work that needs no isolation (the bytes came from this worker process), run on the
 * second core while the parser keeps going on the first. The file is written here, so
 * the encoded bytes never cross back to the parser's heap.
 */
import { initParquet, writeParquetFromIpc } from "../src/storage/parquet.ts";
import { writeSynced } from "./table-parts.ts";

export default async function encodePart({ ipc, path, module }: { ipc: Uint8Array; path: string; module?: WebAssembly.Module }): Promise<number> {
  // The parse worker's compiled module: instantiated here, not compiled a second time.
  await initParquet(module);
  const bytes = writeParquetFromIpc(ipc);
  writeSynced(path, bytes);
  // This thread has its own heap, which the parser's collections do not reach: each part
  // leaves its IPC stream and encoded copy behind, tens of MB that would otherwise pile up.
  Bun.gc(true);
  return bytes.length;
}
