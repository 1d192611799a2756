/**
 * Tinypool thread: encodes one Parquet part, from the part's column batches (their
 * buffers transferred), and writes it. CPU
 * work that needs no isolation (the bytes came from this worker process), run on the
 * second core while the parser keeps going on the first. The file is written here, so
 * the encoded bytes never cross back to the parser's heap. It also writes the parser's
 * spool runs (sorted, to their spill files) while a trace is scanned: rows, and so parts,
 * only come after the scan, so this core would otherwise wait.
 */
import { type ColumnBatch, columnBatchArrays } from "../src/domain/column-batch.ts";
import type { EvidenceTableName } from "../src/domain/evidence-schema.ts";
import type { Provenance } from "../src/storage/evidence-metadata.ts";
import { initParquet } from "../src/storage/parquet-writer.ts";
import { RunWriter } from "../src/adapters/trace-events/run-codec.ts";
import { runOrder } from "../src/adapters/trace-events/run-order.ts";
import { TraceColumns, type TraceColumnParts } from "../src/adapters/trace-events/trace-columns.ts";
import { warmUpParquet } from "./parquet-warm-up.ts";
import { ThreadGarbage } from "./thread-garbage.ts";
import { loadTinypool } from "./load-tinypool.ts";
import { SpillAppender } from "./spill-space.ts";
import { threadCpuMs } from "./thread-cpu.ts";
import { encodePartBytes, writeSynced } from "./table-parts.ts";

/** Warms the encoder before the first part (see parquet-warm-up.ts). */
interface WarmUpMessage {
  kind: "warm";
  module: WebAssembly.Module;
  finished: Int32Array;
}

/** This thread's own CPU so far (ms), asked once its work is done: the figure of its busy time. */
interface CpuMessage {
  kind: "cpu";
}

/** Columns for a spool run, made here (see RunOffload.spare in src/adapters/adapter.ts). */
interface SpareMessage {
  kind: "spare";
  events: number;
  finished: Int32Array;
}

/** What a written run answers: its spill file's size, and its columns to fill again. */
export interface WrittenRun {
  bytes: number;
  columns: TraceColumnParts;
}

/** What an encoded part answers: its file's size, and its batches' buffers, moved back. */
export interface EncodedPart {
  bytes: number;
  buffers: ArrayBuffer[];
}

/** A spool run to sort and write to its spill file (see RunOffload in src/adapters/adapter.ts). */
interface RunMessage {
  kind: "run";
  path: string;
  columns: TraceColumnParts;
  finished?: Int32Array;
}

interface PartMessage {
  kind?: "part";
  path: string;
  module?: WebAssembly.Module;
  /** Counts the parts this thread has finished, read by the parser without a message. */
  finished?: Int32Array;
  table: EvidenceTableName;
  provenance: Provenance;
  batches: ColumnBatch[];
}

const garbage = new ThreadGarbage();

export default async function encodePart(
  message: PartMessage | RunMessage | WarmUpMessage | SpareMessage | CpuMessage,
): Promise<unknown> {
  if (message.kind === "cpu") return threadCpuMs() ?? null;
  if (message.kind === "run") return writeRun(message);
  if (message.kind === "spare") return spareColumns(message);
  if (message.kind === "warm") return warmUp(message);
  try {
    // The parse worker's compiled module: instantiated here, not compiled a second time.
    await initParquet(message.module);
    const { path } = message;
    const bytes = encodePartBytes(message);
    writeSynced(path, bytes);
    // The batches' buffers go back to the parser, which builds its next batches in them.
    const buffers = [
      ...new Set(message.batches.flatMap((b) => columnBatchArrays(b).map((a) => a.buffer))),
    ];
    // Each part leaves its encoded copy behind (see thread-garbage.ts).
    garbage.settle(buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0));
    const answer: EncodedPart = { bytes: bytes.length, buffers: buffers as ArrayBuffer[] };
    const Tinypool = loadTinypool();
    return Tinypool.move({
      [Tinypool.transferableSymbol]: answer.buffers,
      [Tinypool.valueSymbol]: answer,
    } as unknown as ArrayBuffer);
  } finally {
    // Failed or not, the part no longer holds the thread.
    if (message.finished) finish(message.finished);
  }
}

/**
 * Never fails: a failed warm-up costs time, not evidence (the parts meet the failure and report
 * it).
 */
async function warmUp(message: WarmUpMessage): Promise<number> {
  try {
    await initParquet(message.module);
    return warmUpParquet();
  } catch {
    return 0;
  } finally {
    finish(message.finished);
  }
}

/**
 * New columns for `events` events, each at its default, moved to the parser: their memory's first
 * touch (page faults, ~3 ms a MB on this project's machine) is paid on this thread, not the
 * parser's (~60 ms for a run of 512K events).
 */
function spareColumns(message: SpareMessage): unknown {
  try {
    const { data, buffers } = new TraceColumns(message.events).handOver();
    const Tinypool = loadTinypool();
    return Tinypool.move({
      [Tinypool.transferableSymbol]: buffers,
      [Tinypool.valueSymbol]: data,
    } as unknown as ArrayBuffer);
  } finally {
    finish(message.finished);
  }
}

/**
 * Sorts the run and writes it as the parser would have; returns the bytes written and the run's
 * columns, emptied and moved back: the parser fills its next run in them rather than in new
 * memory (fresh columns cost it their allocation, first-touch page faults and fill, ~30 ms a run).
 */
function writeRun(message: RunMessage): unknown {
  try {
    const file = new SpillAppender(message.path);
    const columns = TraceColumns.fromParts(message.columns);
    try {
      new RunWriter().write(file, columns, runOrder(columns));
    } finally {
      file.close();
    }
    // Emptied here, back to their defaults, so the parser need not: refilling a run's twelve
    // columns was ~80 ms of a 100 MB Perfetto trace's parser thread.
    columns.clear();
    const returned: WrittenRun = { bytes: file.size, columns: columns.handOver().data };
    message.columns = undefined as unknown as TraceColumnParts;
    const Tinypool = loadTinypool();
    return Tinypool.move({
      [Tinypool.transferableSymbol]: TraceColumns.buffersOf(returned.columns),
      [Tinypool.valueSymbol]: returned,
    } as unknown as ArrayBuffer);
  } finally {
    if (message.finished) finish(message.finished);
  }
}

/** Counts a finished task, for the parser to see without reading this thread's reply. */
function finish(finished: Int32Array): void {
  Atomics.add(finished, 0, 1);
}
