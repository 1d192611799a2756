/**
 * Tinypool thread: encodes one Parquet part from an Arrow IPC stream. CPU work that needs
 * no isolation (the bytes came from this worker process), run on the second core while
 * the parser keeps going on the first.
 */
import { initParquet, writeParquetFromIpc } from "../src/storage/parquet.ts";

export default async function encodePart({ ipc }: { ipc: Uint8Array }): Promise<Uint8Array> {
  await initParquet();
  return writeParquetFromIpc(ipc);
}
