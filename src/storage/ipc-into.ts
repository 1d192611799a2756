/**
 * An Arrow table's IPC stream written into one buffer that is kept and written again for the
 * next table, for bytes that are only read once before the next table comes (parquet-wasm copies
 * its input into its own memory). `tableToIPC` joins the stream's pieces into a new buffer per
 * table: for a Parquet part, ~8 MB of fresh memory, and fresh memory costs a page fault per 4 KiB
 * on first write (~2.8 µs each here). On the encoding thread those faults were ~20% of a 40 MB
 * real Chromium trace's import's faults.
 */
import { AsyncByteQueue, RecordBatchStreamWriter, type Table } from "apache-arrow/Arrow.dom";

/**
 * The writer's byte sink, as apache-arrow accepts it (`reset` keeps a sink that is an
 * AsyncByteQueue): each piece is copied into `buffer` at once instead of being queued.
 */
class BufferSink extends AsyncByteQueue {
  used = 0;
  constructor(public buffer: Uint8Array<ArrayBuffer>) {
    super();
  }

  override write(value: unknown): void {
    const piece = value as ArrayBufferView;
    const bytes = new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength);
    if (this.used + bytes.length > this.buffer.length) {
      let size = Math.max(this.buffer.length * 2, 1 << 16);
      while (size < this.used + bytes.length) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.buffer.subarray(0, this.used));
      this.buffer = next;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }
}

/**
 * A buffer kept from table to table up to this size (a Parquet part's stream is ~8 MB, see
 * BYTES_PER_PART in workers/table-parts.ts); a larger one is let go after its table.
 */
const KEPT_BYTES = 32 << 20;

/** One reusable IPC buffer, grown to the largest table written into it (up to KEPT_BYTES). */
export class IpcScratch {
  private buffer: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  constructor(private readonly keptBytes = KEPT_BYTES) {}

  /**
   * `table`'s IPC stream, as `tableToIPC(table, "stream")` writes it, in this scratch's buffer: the
   * view is valid until the next call.
   */
  write(table: Table): Uint8Array {
    const sink = new BufferSink(this.buffer);
    const writer = new RecordBatchStreamWriter();
    writer.reset(sink as never);
    writer.write(table);
    writer.finish();
    this.buffer = sink.buffer.length <= this.keptBytes ? sink.buffer : new Uint8Array(0);
    return sink.buffer.subarray(0, sink.used);
  }
}
