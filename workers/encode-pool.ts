/**
 * Parquet part encoding on whatever core is free: a part goes to the tinypool thread when
 * the thread has room for it, and the parser goes on parsing. A part of column batches
 * (streamed tables) is handed over as the batches' own buffers, transferred, not copied:
 * the thread builds the Arrow table and its IPC stream itself (that copy was ~8% of a
 * Chrome trace's parser thread); other parts go as an Arrow IPC stream, also transferred.
 * The thread holds at most THREAD_PARTS parts (one encoding, the next waiting); a part that
 * finds it full waits for room. An unbounded queue let the parser run ahead and then wait
 * (~2.9 s of a 200 MB trace) for the thread to drain it, holding every queued part; with no
 * waiting part at all, every part that came while the thread was busy (parts come in bursts)
 * waited. Encoding such a part on the parser's own thread instead kept both cores busy but
 * grew the parser's heap and parquet-wasm memory beside its live data (see `threadRoom`).
 * The thread counts the parts it has finished in shared memory, and parts are posted to it at
 * once: its replies are only read when the parser's event loop turns, which a parser running
 * from batch to batch does rarely, so a count kept from them held a finished thread "full"
 * and handed every third part of a 100 MB trace to the parser (400 ms of its time; 113 ms
 * now). While a trace is scanned, before any part, the thread also writes the parser's spool
 * runs (`runOffload`), counted the same way.
 * Falls back to encoding on the calling thread where threads cannot be started (a `bun
 * build --compile` binary, or a pool that fails to start).
 */
import type TinypoolClass from "tinypool";
import { loadTinypool } from "./load-tinypool.ts";
import type { RunOffload } from "../src/adapters/adapter.ts";
import type { EncodedPart, WrittenRun } from "./parquet-encode-thread.ts";
import { isBatchBuffer, recycleBatchBuffers } from "../src/adapters/common/batch-buffers.ts";
import {
  type ColumnBatch,
  type ColumnVector,
  columnBatchArrays,
} from "../src/domain/column-batch.ts";
import { compiledParquetModule } from "../src/storage/parquet-module.ts";
import { initParquet } from "../src/storage/parquet-writer.ts";
import {
  encodePartBytes,
  recycleBatches,
  type PartContent,
  type PartEncoder,
  writeSyncedAsync,
} from "./table-parts.ts";

export interface EncodePool {
  encode: PartEncoder;
  /** Spool runs written on the thread while it has room (absent without a thread). */
  runOffload?: RunOffload;
  /** Whether parts go to the thread (false: asked not to, or threads cannot start here). */
  readonly threaded: boolean;
  /** Parts encoded on the thread and on the calling thread so far (for figures and tests). */
  readonly counts: { thread: number; inline: number };
  /**
   * Milliseconds spent encoding parts on each (the thread's figure includes the hand-over and the
   * part's wait behind the one before it), and waiting for room on the thread (`waited`).
   */
  readonly ms: { thread: number; inline: number; waited: number };
  /** Settles once the thread has warmed its encoder (at once without a thread). */
  readonly warmedUp: Promise<void>;
  /**
   * The thread's own CPU so far (ms): its busy time, where `ms.thread` sums each part's round trip
   * (overlapping while parts wait behind one another). Undefined without a thread, or where the
   * platform does not say.
   */
  threadCpu(): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * Memory budget from which parts are encoded on the thread. The thread has its own JS heap,
 * module graph and parquet-wasm memory: ~80 MB more at peak (200 MB trace, in process:
 * 344 → 422 MB), which a 512 MiB budget has no room for next to a 2 GB trace's live data
 * (436 MB peak on one thread). Encoding is ~1/4 of a trace's CPU time, so below this
 * budget parts are encoded inline, slower but within the cap.
 */
export const ENCODE_THREAD_MIN_BUDGET = 1 << 30;
/**
 * Payload bytes from which the thread pays for its start: it loads its own module graph
 * and parquet-wasm, ~0.2 s of a small import (sample.cpuprofile: 0.3 s inline, 0.5 s with
 * the thread). Compressed (gzip, zstd) payloads count 4x, a typical ratio for JSON traces.
 */
export const ENCODE_THREAD_MIN_PAYLOAD = 32 << 20;

/**
 * Parts the thread holds at once: the one it encodes and one waiting, so a part that comes
 * while the thread is busy still goes to the free core instead of the parser's (measured on
 * a 100 MB Chrome trace: the parser encoded 12 of 22 parts itself, ~0.7 s of its 3.7 s,
 * while the thread stood idle for most of the import).
 */
export const THREAD_PARTS = 2;

export function useEncodeThread(
  memoryBudgetBytes: number,
  payloadBytes: number,
  compressed: boolean,
): boolean {
  return (
    memoryBudgetBytes >= ENCODE_THREAD_MIN_BUDGET &&
    payloadBytes * (compressed ? 4 : 1) >= ENCODE_THREAD_MIN_PAYLOAD
  );
}

/** A pool with one encoding thread when `threads`, else inline encoding. */
export function startEncodePool(threads = false): EncodePool {
  const here = import.meta.url;
  const counts = { thread: 0, inline: 0 };
  const ms = { thread: 0, inline: 0, waited: 0 };
  const warmedUp = Promise.resolve();
  const noThread = {
    threaded: false,
    counts,
    ms,
    warmedUp,
    threadCpu: async () => undefined,
  };
  const inline: PartEncoder = async (part, path) => {
    counts.inline++;
    await initParquet();
    // The figure is this thread's encoding alone: parts that end together wait for parquet-wasm
    // at once (each timed from before the wait, they counted it once per part), and the write
    // and sync run on the runtime's I/O threads.
    const started = performance.now();
    const bytes = encodePartBytes(part);
    ms.inline += performance.now() - started;
    recycleBatches(part.batches);
    await writeSyncedAsync(path, bytes);
  };
  if (!threads || here.includes("/$bunfs/") || here.includes("%24bunfs"))
    return { ...noThread, encode: inline, close: async () => {} };
  let pool: TinypoolClass | null;
  try {
    const Tinypool = loadTinypool();
    pool = new Tinypool({
      filename: new URL("./parquet-encode-thread.ts", here).href,
      minThreads: 1,
      maxThreads: 1,
      // Parts are posted to the thread at once, not held in the pool's queue: the queue only
      // moves when this thread's event loop reads the thread's replies, and the parser runs
      // for long stretches without turning it. The `finished` counter bounds what the thread
      // really holds (THREAD_PARTS); the pool's own count lags behind it.
      concurrentTasksPerWorker: THREAD_PARTS * 8,
      idleTimeout: 60_000,
    });
  } catch {
    return { ...noThread, encode: inline, close: async () => {} };
  }
  // Parts sent to the thread, and (counted by the thread itself) parts it has finished.
  let sent = 0;
  const finished = new Int32Array(new SharedArrayBuffer(4));
  // The thread warms the encoder while the parser scans (parquet-warm-up.ts). It holds a place
  // like a part, so a part that comes meanwhile waits behind it on the thread.
  sent++;
  const threadWarmedUp = compiledParquetModule()
    .then(async (module) => {
      await pool?.run({ kind: "warm", module, finished });
    })
    .catch(() => {
      // The module did not compile, or the pool closed first: the parts meet that themselves.
      Atomics.add(finished, 0, 1);
    });
  // Set once a part's task fails: a thread that died never counts its parts as finished, so
  // nothing waits for it any more.
  let threadFailed = false;
  /**
   * Waits, while the thread is full, until it finishes a part (its count in `finished` says so);
   * false when there is no thread to wait for. Waiting, not encoding the part on the calling
   * thread: at 2 GB of Perfetto the parser encoding parts itself in bursts took the worker's peak
   * to 506-519 MiB and its wall to 129-138 s; waiting, 472 MiB and 119 s (every part on the
   * thread, none inline).
   */
  const threadRoom = async (): Promise<boolean> => {
    const started = performance.now();
    try {
      for (;;) {
        if (threadFailed || pool === null) return false;
        const done = Atomics.load(finished, 0);
        if (sent - done < THREAD_PARTS) return true;
        // A short sleep, not Atomics.waitAsync: Bun 1.4's waitAsync can spin on the waiting
        // thread, burning the core the encode thread needs (a lone waiter: 1 s of waiting, 1 s
        // of CPU; in the worker, 158 ms of the parser's CPU in 262 ms of waiting on the
        // Chromium startup trace repeated to 100 MB). 1 ms sleeps cost ~28 ms of CPU a second.
        // The thread's count shows a finished part before its reply is read.
        await new Promise((awake) => setTimeout(awake, 1));
      }
    } finally {
      ms.waited += performance.now() - started;
    }
  };
  const runOffload: RunOffload = {
    write: (file, run) => {
      const path = file.path;
      if (path === undefined || file.appendedElsewhere === undefined) return null;
      if (sent - Atomics.load(finished, 0) >= THREAD_PARTS) return null;
      sent++;
      const { data, buffers } = run.handOver();
      const transferList = buffers as unknown as NonNullable<
        Parameters<TinypoolClass["run"]>[1]
      >["transferList"];
      return pool!
        .run({ kind: "run", path, columns: data, finished }, { transferList })
        .then((written: WrittenRun) => {
          file.appendedElsewhere!(written.bytes);
          return written.columns;
        });
    },
    spare: (events) => {
      if (sent - Atomics.load(finished, 0) >= THREAD_PARTS) return null;
      sent++;
      return pool!.run({ kind: "spare", events, finished });
    },
  };
  return {
    threaded: true,
    runOffload,
    counts,
    ms,
    warmedUp: threadWarmedUp,
    threadCpu: async () => {
      const cpu = (await pool?.run({ kind: "cpu" }).catch(() => null)) as number | null;
      return cpu ?? undefined;
    },
    encode: async (part: PartContent, path: string) => {
      // Checked here first: with room, the part is posted before this call returns.
      if (sent - Atomics.load(finished, 0) >= THREAD_PARTS && !(await threadRoom()))
        return inline(part, path);
      sent++;
      counts.thread++;
      const started = performance.now();
      try {
        const module = await compiledParquetModule();
        const { table, provenance, batches } = part;
        const message = {
          table,
          provenance,
          batches: transferable(batches),
          path,
          module,
          finished,
        };
        const buffers = message.batches.flatMap((b) => columnBatchArrays(b).map((a) => a.buffer));
        const transferList = buffers as unknown as NonNullable<
          Parameters<TinypoolClass["run"]>[1]
        >["transferList"];
        const encoded = (await pool!.run(message, { transferList }).catch((error: unknown) => {
          threadFailed = true;
          throw error;
        })) as EncodedPart;
        // The batches' buffers, moved back: the next batches are built in them.
        recycleBatchBuffers(encoded.buffers, true);
      } finally {
        ms.thread += performance.now() - started;
      }
    },
    close: async () => {
      await pool?.destroy();
      pool = null;
    },
  };
}

/**
 * The batches with every typed array owning its whole buffer, once: what can be
 * transferred. Batches from the column builders already are (they build by copying into
 * batch buffers); a view into a larger or shared buffer is copied, since transferring its
 * buffer would detach memory that something else still reads.
 */
function transferable(batches: readonly ColumnBatch[]): ColumnBatch[] {
  const seen = new Set<ArrayBufferLike>();
  const owned = <T extends Uint8Array | Int32Array | BigInt64Array | Float64Array>(a: T): T => {
    // A batch buffer is its view's alone, however much of it the view spans.
    const whole =
      a.byteOffset === 0 &&
      (a.byteLength === a.buffer.byteLength || isBatchBuffer(a.buffer)) &&
      !seen.has(a.buffer) &&
      a.buffer instanceof ArrayBuffer;
    const out = whole ? a : (a.slice() as T);
    seen.add(out.buffer);
    return out;
  };
  return batches.map((batch) => {
    const columns: ColumnBatch["columns"] = {};
    for (const name in batch.columns) {
      const v = batch.columns[name]!;
      const valid = v.valid ? owned(v.valid) : null;
      if (v.type === "utf8")
        columns[name] = { ...v, valid, offsets: owned(v.offsets), data: owned(v.data) };
      else if (v.type === "utf8_dict")
        columns[name] = {
          ...v,
          valid,
          indices: owned(v.indices),
          dictOffsets: owned(v.dictOffsets),
          dictData: owned(v.dictData),
        };
      else if (v.type === "list_utf8")
        columns[name] = {
          ...v,
          valid,
          listOffsets: owned(v.listOffsets),
          offsets: owned(v.offsets),
          data: owned(v.data),
        };
      else if (v.type === "list_utf8_dict")
        columns[name] = {
          ...v,
          valid,
          listOffsets: owned(v.listOffsets),
          indices: owned(v.indices),
          dictOffsets: owned(v.dictOffsets),
          dictData: owned(v.dictData),
        };
      // Every other vector is one typed array of values, of the vector's own type.
      else columns[name] = { ...v, valid, values: owned(v.values) } as ColumnVector;
    }
    return { ...batch, columns };
  });
}
