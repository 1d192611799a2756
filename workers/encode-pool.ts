/**
 * Parquet part encoding on a tinypool thread, pipelined with parsing: the parse worker
 * hands each full part over as an Arrow IPC stream (transferred, not copied) and goes on
 * parsing. Falls back to encoding on the calling thread where threads cannot be started
 * (a `bun build --compile` binary, or a pool that fails to start).
 */
import { tableToIPC, type Table } from "apache-arrow";
import Tinypool from "tinypool";
import { encodeInline, type PartEncoder } from "./table-parts.ts";

export interface EncodePool {
  encode: PartEncoder;
  close(): Promise<void>;
}

/**
 * Off unless `threads` is set: measured on a 200 MB trace, the second parquet-wasm instance
 * added ~0.5 GB of RSS while saving little time, because the streaming adapters emit their
 * big tables at the end (rows need the whole track's nesting), so there is little to overlap.
 * OTLP protobuf does emit rows as it parses, but there encoding is ~1/5 of the worker's CPU
 * (50 MB request: ~0.9 s of ~4.8 s), so overlapping it saves at most that, while the
 * thread (its own JS heap, module graph and parquet-wasm memory) took the worker's peak
 * RSS from 370 MB to 490 MB, too close to the 512 MB budget.
 */
export function startEncodePool(threads = false): EncodePool {
  const here = import.meta.url;
  if (!threads || here.includes("/$bunfs/") || here.includes("%24bunfs")) return { encode: encodeInline, close: async () => {} };
  let pool: Tinypool | null;
  try {
    pool = new Tinypool({ filename: new URL("./parquet-encode-thread.ts", here).href, minThreads: 1, maxThreads: 1, idleTimeout: 60_000 });
  } catch {
    return { encode: encodeInline, close: async () => {} };
  }
  return {
    encode: async (table: Table) => {
      const ipc = tableToIPC(table, "stream");
      // The IPC buffer is transferred, not copied, to the encoding thread.
      const transferList = [ipc.buffer] as unknown as NonNullable<Parameters<Tinypool["run"]>[1]>["transferList"];
      return new Uint8Array((await pool!.run({ ipc }, { transferList })) as Uint8Array);
    },
    close: async () => {
      await pool?.destroy();
      pool = null;
    },
  };
}
