/**
 * Writes one evidence table as Parquet parts of at most ROWS_PER_PART rows (and, from column
 * batches, BYTES_PER_PART bytes), from column batches (streaming adapters) or a whole
 * TableBuffer. A part is encoded as soon as it is
 * full, so the rows held in memory never exceed one part.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { recycleBatchBuffers } from "../src/adapters/common/batch-buffers.ts";
import {
  type ColumnBatch,
  columnBatchArrays,
  sliceColumnBatch,
} from "../src/domain/column-batch.ts";
import type { EvidenceTableName } from "../src/domain/evidence-schema.ts";
import { EVIDENCE_SCHEMAS } from "../src/domain/evidence-schema.ts";
import type { TableBuffer } from "../src/domain/table-buffer.ts";
import { IpcStreamWriter } from "../src/storage/arrow-ipc-stream.ts";
import type { Provenance } from "../src/storage/evidence-metadata.ts";
import { initParquet, writeParquetFromIpc } from "../src/storage/parquet-writer.ts";
import { tableBufferBatch } from "../src/storage/table-buffer-columns.ts";

/**
 * Rows per Parquet part. parquet-wasm encodes a part inside its linear memory, which never
 * shrinks: 256Ki rows keep that memory (and so the worker's RSS) bounded whatever the
 * artifact's size, at the cost of more, smaller files for huge traces.
 */
export const ROWS_PER_PART = 262_144;
/**
 * Rows of a TableBuffer converted to a column batch at once (the part's byte budget is checked
 * between slices).
 */
const BUFFER_SLICE_ROWS = 8_192;

/**
 * Arrow bytes per Parquet part, whatever the row count: parquet-wasm holds a part's IPC
 * copy, its decoded arrays and the encoded file at once, and its linear memory keeps its
 * high-water mark, so wide rows (OTLP spans with their attributes: ~380 bytes; Chrome
 * events with args) must close a part before ROWS_PER_PART. With two parts in flight and
 * the encoder on its own thread, 8 MiB instead of 16 took a 200 MB trace's peak from
 * ~510 to ~430 MB at no measurable cost in time (per-part work is a few ms).
 */
export const BYTES_PER_PART = 8 << 20;

/**
 * Parts of one table being encoded at once: the encoder thread's (THREAD_PARTS in
 * encode-pool.ts) and the one the parser encodes when that thread is full. With fewer, the
 * parser would wait for the thread's waiting part instead of working.
 */
const MAX_PARTS_IN_FLIGHT = 3;

/** Bytes of a batch's column buffers (what the part will copy into the encoder). */
function batchBytes(batch: ColumnBatch): number {
  let bytes = 0;
  for (const name in batch.columns) {
    const v = batch.columns[name]!;
    bytes +=
      v.type === "utf8"
        ? v.data.byteLength + v.offsets.byteLength
        : v.type === "utf8_dict"
          ? v.indices.byteLength + v.dictData.byteLength + v.dictOffsets.byteLength
          : v.type === "list_utf8"
            ? v.data.byteLength + v.offsets.byteLength + v.listOffsets.byteLength
            : v.type === "list_utf8_dict"
              ? v.listOffsets.byteLength +
                v.indices.byteLength +
                v.dictData.byteLength +
                v.dictOffsets.byteLength
              : v.values.byteLength;
  }
  return bytes;
}

export interface WrittenPart {
  table: EvidenceTableName;
  part: number;
  file: string;
  rows: number;
  schema_id: string;
}

/** The rows of one part, as they were handed over. */
export interface PartContent {
  readonly table: EvidenceTableName;
  readonly provenance: Provenance;
  /**
   * The part's rows as column batches (the adapter's, or a row buffer's converted): each batch
   * owns its buffers, so a thread can take them over as they are and write the part's IPC
   * stream itself, off the parser's thread.
   */
  readonly batches: readonly ColumnBatch[];
}

/** Encodes a part and writes it, synced, to `path`. */
export type PartEncoder = (part: PartContent, path: string) => Promise<void>;

/** This thread's stream buffer: parquet-wasm copies a stream in, so one serves every part. */
const streams = new IpcStreamWriter();

/** Encodes a part on the calling thread; parquet-wasm must be initialised (`initParquet`). */
export function encodePartBytes(part: PartContent): Uint8Array {
  return writeParquetFromIpc(streams.write(part.table, part.provenance, part.batches));
}

/**
 * Encodes on the calling thread, then writes and syncs the part off it (`writeSyncedAsync`).
 * parquet-wasm is set up at the first part, so a worker can scan while it compiles.
 */
export const encodeInline: PartEncoder = async (part, path) => {
  await initParquet();
  const bytes = encodePartBytes(part);
  recycleBatches(part.batches);
  await writeSyncedAsync(path, bytes);
};

/**
 * Gives an encoded part's batch buffers back for the next batches (batch-buffers.ts): nothing
 * reads a part's batches once it is encoded.
 */
export function recycleBatches(batches: readonly ColumnBatch[]): void {
  for (const batch of batches)
    recycleBatchBuffers(
      columnBatchArrays(batch).map((a) => a.buffer),
      false,
    );
}

export class TableParts {
  readonly parts: WrittenPart[] = [];
  /** Column batches as handed over, or converted from row buffers. */
  private pending: ColumnBatch[] = [];
  private pendingRows = 0;
  private pendingBytes = 0;
  private readonly writes: Promise<void>[] = [];
  constructor(
    readonly table: EvidenceTableName,
    private readonly outputDir: string,
    /** A promise while the payload is still landing: its artifact id is known at the end. */
    private readonly provenance: Provenance | Promise<Provenance>,
    private readonly encode: PartEncoder = encodeInline,
    /** Runs after each part is written and each buffer converted (see extract-tables.ts). */
    private readonly checkpoint: () => void = () => {},
  ) {}

  async add(batch: ColumnBatch): Promise<void> {
    let start = 0;
    const rowBytes = batch.length > 0 ? batchBytes(batch) / batch.length : 0;
    // A batch that does not fit beside the pending rows starts the next part whole: cutting
    // it copies every column on both sides of the cut.
    if (
      this.pendingRows > 0 &&
      (this.pendingRows + batch.length > ROWS_PER_PART ||
        this.pendingBytes + rowBytes * batch.length > BYTES_PER_PART)
    )
      await this.flush();
    // A batch that straddles a part boundary is split so parts stay within ROWS_PER_PART and
    // BYTES_PER_PART.
    while (start < batch.length) {
      const byBytes =
        rowBytes > 0
          ? Math.max(1, Math.ceil((BYTES_PER_PART - this.pendingBytes) / rowBytes))
          : Infinity;
      const take = Math.min(batch.length - start, ROWS_PER_PART - this.pendingRows, byBytes);
      // The rows on each side of a part boundary are copied apart: parts may go to different
      // threads.
      this.pending.push(
        start === 0 && take === batch.length ? batch : sliceColumnBatch(batch, start, start + take),
      );
      this.pendingRows += take;
      this.pendingBytes += take * rowBytes;
      start += take;
      if (this.pendingRows === ROWS_PER_PART || this.pendingBytes >= BYTES_PER_PART)
        await this.flush();
    }
  }

  async addBuffer(buffer: TableBuffer): Promise<void> {
    // Converted a slice at a time, so a huge buffer never becomes one huge batch, and parts
    // close at BYTES_PER_PART as for batches (stacks rows carry lists and long ids).
    for (let start = 0; start < buffer.rowCount; ) {
      const end = Math.min(
        buffer.rowCount,
        start + BUFFER_SLICE_ROWS,
        start + ROWS_PER_PART - this.pendingRows,
      );
      const batch = tableBufferBatch(buffer, start, end);
      this.pending.push(batch);
      this.pendingBytes += batchBytes(batch);
      this.pendingRows += end - start;
      start = end;
      if (this.pendingRows === ROWS_PER_PART || this.pendingBytes >= BYTES_PER_PART)
        await this.flush();
    }
    // Buffers come as row objects (stacks chunks, whole small tables): their garbage is
    // the largest per row.
    this.checkpoint();
  }

  /**
   * Writes what is pending as the next part; every table gets at least one (possibly empty) part.
   */
  private async flush(): Promise<void> {
    const batches = this.pending;
    const rows = this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    this.pendingBytes = 0;
    const part = this.parts.length;
    const file = `${this.table}.${part}.parquet`;
    this.parts.push({
      table: this.table,
      part,
      file,
      rows,
      schema_id: EVIDENCE_SCHEMAS[this.table].schemaId,
    });
    const { table } = this;
    const content = (provenance: Provenance): PartContent => ({ table, provenance, batches });
    // A part waits for a landing payload's provenance without holding the parser up: the
    // in-flight bound below is what stops it (an OTLP trace's first part comes before a large
    // copy has landed). A part leaves ~50 MB of garbage (its batches and IPC stream)
    // that the collector otherwise lets pile up to gigabytes over a large import.
    const path = join(this.outputDir, file);
    const write =
      this.provenance instanceof Promise
        ? this.provenance.then((provenance) => this.encode(content(provenance), path))
        : this.encode(content(this.provenance), path);
    this.writes.push(write.then(this.checkpoint));
    // At most MAX_PARTS_IN_FLIGHT parts in flight: the parser keeps going while the encoder
    // thread holds its parts (encode-pool.ts) and it encodes one more itself.
    if (this.writes.length >= MAX_PARTS_IN_FLIGHT)
      await this.writes[this.writes.length - MAX_PARTS_IN_FLIGHT];
  }

  /** Bytes of the rows not yet sent as a part. */
  get unsentBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Sends the last part (every table gets at least one) on its way without waiting for it, so
   * the last parts of several tables are encoded at once (see `finishTables`).
   */
  async flushLast(): Promise<void> {
    if (this.pendingRows > 0 || this.parts.length === 0) await this.flush();
  }

  async finish(): Promise<WrittenPart[]> {
    await this.flushLast();
    await Promise.all(this.writes);
    return this.parts;
  }
}

/**
 * Finishes every table's parts, listed in `order`. Each table's last part is sent before any is
 * waited for, the largest first: finished one table at a time, the last parts went to the encode
 * thread one after another while the parser's thread waited (~0.24 s at the end of a 100 MB
 * Chrome trace's import), where it now encodes those the thread has no room for.
 */
export async function finishTables(
  writers: ReadonlyMap<EvidenceTableName, TableParts>,
  order: readonly EvidenceTableName[],
): Promise<WrittenPart[]> {
  const present = order.flatMap((table) => writers.get(table) ?? []);
  const largestFirst = [...present].sort((a, b) => b.unsentBytes - a.unsentBytes);
  for (const parts of largestFirst) await parts.flushLast();
  const written: WrittenPart[] = [];
  for (const parts of present) written.push(...(await parts.finish()));
  return written;
}

/**
 * Writes a part and syncs it: published evidence must survive a power loss, and a synced
 * page is clean cache the kernel can reclaim, while dirty pages count against the worker's
 * memory cgroup until written back.
 */
export function writeSynced(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "w", 0o644);
  try {
    for (let done = 0; done < bytes.length; )
      done += writeSync(fd, bytes, done, bytes.length - done);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * `writeSynced` on the runtime's I/O threads: the parser's thread encodes a part when the
 * encode thread is full, and waiting there for the disk (fdatasync, ~3.5% of a Perfetto
 * trace's parser thread) held the parse up; the part's write is awaited before the
 * extraction answers, as every part's is.
 */
export async function writeSyncedAsync(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, "w", 0o644);
  try {
    for (let done = 0; done < bytes.length; )
      done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
    await file.datasync();
  } finally {
    await file.close();
  }
}
