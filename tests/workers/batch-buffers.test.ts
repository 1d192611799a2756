/**
 * Batch buffers: batches built in buffers that come back from encoded parts keep their own rows,
 * on the encoding thread and on the calling thread, whatever order parts finish in; only buffers
 * a batch owns are used again.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  copyBigInt64,
  copyInt32,
  copyUint8,
  isBatchBuffer,
  KEPT_BYTES,
  keptBatchBytes,
  recycleBatchBuffers,
} from "../../src/adapters/common/batch-buffers.ts";
import { Utf8Builder } from "../../src/adapters/common/column-builders.ts";
import type { ColumnBatch, ColumnVector } from "../../src/domain/column-batch.ts";
import { initParquet, readParquet } from "../../src/storage/parquet.ts";
import { startEncodePool } from "../../workers/encode-pool.ts";
import { encodeInline, type PartContent } from "../../workers/table-parts.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-batch-buffers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const enc = new TextEncoder();
const TRACK_COLUMNS = ["track_id", "pid", "tid", "process_name", "thread_name"] as const;

/** The text of row `row` of part `part`, column `c`: every part's rows differ. */
const cell = (part: number, row: number, c: number) =>
  `p${part}-r${row}-c${c}-${"x".repeat((part * 7 + row * 3 + c) % 40)}`;

/** Builds `tracks` batches with the column builders, reused from batch to batch. */
class TrackBatches {
  private readonly builders = TRACK_COLUMNS.map(() => new Utf8Builder(512, 64));
  batch(part: number, rows: number): ColumnBatch {
    for (let row = 0; row < rows; row++)
      this.builders.forEach((b, c) => b.set(row, enc.encode(cell(part, row, c))));
    const columns = Object.fromEntries(
      TRACK_COLUMNS.map((name, c) => [name, this.builders[c]!.build(rows)]),
    );
    for (const b of this.builders) b.reset();
    // tracks' one non-text column, null in every row (as where a trace has no counter readings).
    const trackIndex: ColumnVector = {
      type: "int32",
      values: new Int32Array(rows),
      valid: new Uint8Array((rows + 7) >> 3),
      nullCount: rows,
    };
    return { table: "tracks", length: rows, columns: { ...columns, track_index: trackIndex } };
  }
}

const partOf = (batches: ColumnBatch[]): PartContent => ({
  table: "tracks",
  provenance: TEST_PROVENANCE,
  batches,
});

/** The rows of `file`'s column `name`. */
const columnOf = (file: string, name: string) =>
  Array.from(
    readParquet(readFileSync(join(dir, file)))
      .getChild(name)!
      .toArray() as ArrayLike<string>,
  );

describe("batch buffers", () => {
  test("copies hold the source's first values, in buffers of whole size classes", () => {
    const i32 = Int32Array.from({ length: 3000 }, (_, i) => i * 7 - 5);
    const i64 = BigInt64Array.from({ length: 700 }, (_, i) => BigInt(i) * 2n ** 40n);
    const u8 = Uint8Array.from({ length: 5000 }, (_, i) => i % 251);
    const a = copyInt32(i32, 2999);
    const b = copyBigInt64(i64, 700);
    const c = copyUint8(u8, 1);
    expect(Array.from(a)).toEqual(Array.from(i32.subarray(0, 2999)));
    expect(Array.from(b)).toEqual(Array.from(i64));
    expect(Array.from(c)).toEqual([0]);
    expect(a.buffer.byteLength).toBe(16384);
    expect(b.buffer.byteLength).toBe(8192);
    expect(c.buffer.byteLength).toBe(4096);
    expect(isBatchBuffer(a.buffer)).toBe(true);
  });

  test("a recycled buffer is handed out again, once; a buffer not handed out is not kept", () => {
    const first = copyUint8(new Uint8Array(9000), 9000);
    const second = copyUint8(new Uint8Array(9000), 9000);
    expect(second.buffer).not.toBe(first.buffer);
    recycleBatchBuffers([first.buffer], false);
    const again = copyUint8(new Uint8Array(9000).fill(3), 9000);
    expect(again.buffer).toBe(first.buffer);
    expect(again.every((v) => v === 3)).toBe(true);
    const next = copyUint8(new Uint8Array(9000), 9000);
    expect(next.buffer).not.toBe(first.buffer);
    // Someone else's memory, however it is sized, is never kept from a part encoded here.
    const foreign = new ArrayBuffer(16384);
    const before = keptBatchBytes();
    recycleBatchBuffers([foreign], false);
    expect(keptBatchBytes()).toBe(before);
    expect(isBatchBuffer(foreign)).toBe(false);
  });

  test("the free list keeps at most KEPT_BYTES", () => {
    const many = Array.from({ length: (2 * KEPT_BYTES) / 65536 }, () =>
      copyUint8(new Uint8Array(65536), 65536),
    );
    recycleBatchBuffers(
      many.map((a) => a.buffer),
      false,
    );
    expect(keptBatchBytes()).toBeLessThanOrEqual(KEPT_BYTES);
    expect(keptBatchBytes()).toBeGreaterThan(KEPT_BYTES - 65536);
    // Drained again, so the next tests start from an empty list.
    for (const _ of many) copyUint8(new Uint8Array(65536), 65536);
  });

  test("parts encoded on the thread and here, never awaited in order, keep their own rows", async () => {
    await initParquet();
    const pool = startEncodePool(true);
    // A part finding the thread full waits for it, so parts encoded here come from a pool of
    // this thread's own, recycling into the same free list.
    const here = startEncodePool(false);
    const builder = new TrackBatches();
    const written: Promise<void>[] = [];
    const parts = 40;
    try {
      for (let p = 0; p < parts; p++) {
        const rows = 50 + ((p * 37) % 400);
        const batches = [builder.batch(p, rows), builder.batch(p + 1000, 30)];
        const encoder = p % 3 === 2 ? here : pool;
        written.push(encoder.encode(partOf(batches), join(dir, `thread-${p}.parquet`)));
        // Every few parts, this thread waits on one: returned buffers are then built in while
        // other parts are still out.
        if (p % 5 === 4) await written[p - 2];
      }
      await Promise.all(written);
    } finally {
      await pool.close();
      await here.close();
    }
    expect(pool.counts.thread).toBeGreaterThan(0);
    expect(here.counts.inline).toBeGreaterThan(0);
    for (let p = 0; p < parts; p++) {
      const table = readParquet(readFileSync(join(dir, `thread-${p}.parquet`)));
      const rows = 50 + ((p * 37) % 400);
      expect(table.numRows).toBe(rows + 30);
      TRACK_COLUMNS.forEach((name, c) => {
        const values = Array.from(table.getChild(name)!.toArray() as ArrayLike<string>);
        expect(values).toEqual([
          ...Array.from({ length: rows }, (_, row) => cell(p, row, c)),
          ...Array.from({ length: 30 }, (_, row) => cell(p + 1000, row, c)),
        ]);
      });
    }
  });

  test("a part encoded here gives back only the buffers its builders made", async () => {
    await initParquet();
    const builder = new TrackBatches();
    // A batch whose text column is a view of memory the caller goes on using.
    const shared = new Uint8Array(65536);
    const own = builder.batch(1, 20);
    const text = enc.encode("abc".repeat(20));
    shared.set(text);
    const offsets = Int32Array.from({ length: 21 }, (_, i) => 3 * i);
    const foreign: ColumnBatch = {
      ...own,
      columns: {
        ...own.columns,
        thread_name: {
          type: "utf8",
          offsets,
          data: shared.subarray(0, 60),
          valid: null,
          nullCount: 0,
        },
      },
    };
    await encodeInline(partOf([foreign]), join(dir, "inline.parquet"));
    // Were the shared buffer kept, the next batch of its size class would be built in it.
    for (let p = 0; p < 8; p++) builder.batch(p, 400);
    copyUint8(new Uint8Array(65536).fill(9), 65536);
    expect(shared.subarray(0, 60)).toEqual(text);
    expect(shared[100]).toBe(0);
    expect(columnOf("inline.parquet", "thread_name")).toEqual(Array(20).fill("abc"));
    expect(columnOf("inline.parquet", "track_id")).toEqual(
      Array.from({ length: 20 }, (_, row) => cell(1, row, 0)),
    );
  });
});
