/**
 * Compact records kept in arrival order and read back once, in the same order, at the
 * end. Formats that name their samples only after the last sample (simpleperf writes
 * its files and threads after the samples; a speedscope or DHAT document may put its
 * frame table after the profiles) must keep every sample until then: here each is a few
 * bytes (numbers written little-endian, no object per sample). Up to `memoryBytes` stay
 * in memory; past that the buffer is appended to a scratch file and starts over, so
 * memory stays bounded however many samples the artifact holds. Without scratch space
 * everything stays in memory.
 */
import type { SpillFile, SpillSpace } from "../adapter.ts";

/** What a streaming adapter holds before spilling, unless told otherwise. */
export const DEFAULT_SPOOL_MEMORY_BYTES = 16 << 20;
const FIRST_BUFFER_BYTES = 1 << 16;
const READ_BLOCK_BYTES = 1 << 20;

export class RecordSpool {
  private buffer: Uint8Array;
  private view: DataView;
  private used = 0;
  private file: SpillFile | null = null;
  /** Records appended so far. */
  records = 0;

  constructor(
    private readonly space: SpillSpace | undefined,
    private readonly memoryBytes = DEFAULT_SPOOL_MEMORY_BYTES,
  ) {
    this.buffer = new Uint8Array(
      space === undefined ? FIRST_BUFFER_BYTES : Math.min(FIRST_BUFFER_BYTES, memoryBytes),
    );
    this.view = new DataView(this.buffer.buffer);
  }

  /** Bytes written to scratch space so far. */
  get spilledBytes(): number {
    return this.file?.size ?? 0;
  }

  /** Starts a record of `bytes` bytes; its fields follow through `i32`/`f64`. */
  begin(bytes: number): void {
    this.records++;
    if (this.used + bytes <= this.buffer.length) return;
    const need = this.used + bytes;
    if (this.space !== undefined && this.used > 0 && need > this.memoryBytes) {
      this.file ??= this.space.create();
      this.file.append(this.buffer.subarray(0, this.used));
      this.used = 0;
      if (bytes <= this.buffer.length) return;
    }
    let size = Math.max(1, this.buffer.length) * 2;
    while (size < this.used + bytes) size *= 2;
    // Never past the budget, unless one record needs more.
    if (this.space !== undefined)
      size = Math.min(size, Math.max(this.memoryBytes, this.used + bytes));
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.used));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  i32(value: number): void {
    this.view.setInt32(this.used, value, true);
    this.used += 4;
  }

  f64(value: number): void {
    this.view.setFloat64(this.used, value, true);
    this.used += 8;
  }

  /** A reader from the first record (spilled bytes first, then what is in memory). */
  reader(): SpoolReader {
    return new SpoolReader(this.file, this.buffer.subarray(0, this.used));
  }

  /** Deletes the scratch file and lets the buffer go. */
  dispose(): void {
    this.file?.dispose();
    this.file = null;
    this.buffer = new Uint8Array(0);
    this.view = new DataView(this.buffer.buffer);
    this.used = 0;
  }
}

/** Reads a spool's records in order: `need` before each record, then its fields. */
export class SpoolReader {
  private stage = new Uint8Array(READ_BLOCK_BYTES);
  private view = new DataView(this.stage.buffer);
  private at = 0;
  private end = 0;
  private filePosition = 0;
  private tailPosition = 0;

  constructor(
    private readonly file: SpillFile | null,
    private readonly tail: Uint8Array,
  ) {}

  /** Makes the next `bytes` bytes readable; throws when the spool holds fewer. */
  need(bytes: number): void {
    if (this.end - this.at >= bytes) return;
    const left = this.end - this.at;
    if (this.stage.length < bytes) {
      const next = new Uint8Array(Math.max(bytes, this.stage.length * 2));
      next.set(this.stage.subarray(this.at, this.end));
      this.stage = next;
      this.view = new DataView(next.buffer);
    } else {
      this.stage.copyWithin(0, this.at, this.end);
    }
    this.at = 0;
    this.end = left;
    // Fill the whole stage, so most records are read without coming back here.
    while (this.end < this.stage.length) {
      const room = this.stage.subarray(this.end);
      const fileLeft = (this.file?.size ?? 0) - this.filePosition;
      if (fileLeft > 0) {
        const n = this.file!.read(
          room.subarray(0, Math.min(room.length, fileLeft)),
          this.filePosition,
        );
        if (n === 0) throw new Error("record spool: the scratch file ended early");
        this.filePosition += n;
        this.end += n;
        continue;
      }
      const n = Math.min(room.length, this.tail.length - this.tailPosition);
      if (n === 0) break;
      room.set(this.tail.subarray(this.tailPosition, this.tailPosition + n));
      this.tailPosition += n;
      this.end += n;
    }
    if (this.end < bytes) throw new Error("record spool: read past the last record");
  }

  /** Passes over `bytes` bytes. */
  skip(bytes: number): void {
    this.need(bytes);
    this.at += bytes;
  }

  i32(): number {
    const v = this.view.getInt32(this.at, true);
    this.at += 4;
    return v;
  }

  f64(): number {
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }
}
