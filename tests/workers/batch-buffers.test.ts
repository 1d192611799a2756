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
  bigInt64s,
  bytesOf,
  int32s,
  isBatchBuffer,
  KEPT_BYTES,
  keptBatchBytes,
  recycleBatchBuffers,
} from "../../src/adapters/common/batch-buffers.ts";
import { Utf8Builder } from "../../src/adapters/common/column-builders.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import { initParquet, readParquet } from "../../src/storage/parquet.ts";
import { startEncodePool } from "../../workers/encode-pool.ts";
import { columnBatchesToTable, encodeInline, type PartContent } from "../../workers/table-parts.ts";
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
    return { table: "tracks", length: rows, columns };
  }
}

const partOf = (batches: ColumnBatch[]): PartContent => ({
  table: "tracks",
  provenance: TEST_PROVENANCE,
  batches,
  arrow: () => columnBatchesToTable("tracks", TEST_PROVENANCE, batches),
});

/** The rows of `file`'s column `name`. */
const columnOf = (file: string, name: string) =>
  Array.from(
    readParquet(readFileSync(join(dir, file)))
      .getChild(name)!
      .toArray() as ArrayLike<string>,
  );

describe("batch buffers", () => {
  test("arrays come in buffers of their exact length; one recycled is handed out again, once", () => {
    const a = int32s(3000);
    const b = bigInt64s(700);
    const c = bytesOf(9000);
    expect([a.length, b.length, c.length]).toEqual([3000, 700, 9000]);
    expect([a.buffer.byteLength, b.buffer.byteLength, c.buffer.byteLength]).toEqual([
      12000, 5600, 9000,
    ]);
    expect(isBatchBuffer(a.buffer)).toBe(true);
    const d = bytesOf(9000);
    expect(d.buffer).not.toBe(c.buffer);
    recycleBatchBuffers([c.buffer], false);
    expect(isBatchBuffer(c.buffer)).toBe(false);
    const again = bytesOf(9000);
    expect(again.buffer).toBe(c.buffer);
    expect(bytesOf(9000).buffer).not.toBe(c.buffer);
  });

  test("kept: lengths asked for before, buffers handed out here (or moved back owned)", () => {
    const before = keptBatchBytes();
    // Someone else's memory is never kept from a part encoded here, whatever its length.
    bytesOf(16384);
    const foreign = new ArrayBuffer(16384);
    recycleBatchBuffers([foreign], false);
    expect(keptBatchBytes()).toBe(before);
    // A length no builder asks for is left to the collector, even when owned.
    recycleBatchBuffers([new ArrayBuffer(12345)], true);
    expect(keptBatchBytes()).toBe(before);
    // An owned buffer of a length asked for is kept, and handed out again.
    recycleBatchBuffers([foreign], true);
    expect(keptBatchBytes()).toBe(before + 16384);
    expect(bytesOf(16384).buffer).toBe(foreign);
  });

  test("the free list keeps at most KEPT_BYTES", () => {
    const many = Array.from({ length: (2 * KEPT_BYTES) / 65536 }, () => bytesOf(65536));
    recycleBatchBuffers(
      many.map((a) => a.buffer),
      false,
    );
    expect(keptBatchBytes()).toBeLessThanOrEqual(KEPT_BYTES);
    expect(keptBatchBytes()).toBeGreaterThan(KEPT_BYTES - 65536);
    // Drained again, so the next tests start from an empty list.
    for (const _ of many) bytesOf(65536);
  });

  test("parts encoded on the thread and here, never awaited in order, keep their own rows", async () => {
    await initParquet();
    const pool = startEncodePool(true);
    const builder = new TrackBatches();
    const written: Promise<void>[] = [];
    const parts = 40;
    try {
      for (let p = 0; p < parts; p++) {
        const rows = 50 + ((p * 37) % 400);
        const batches = [builder.batch(p, rows), builder.batch(p + 1000, 30)];
        written.push(pool.encode(partOf(batches), join(dir, `thread-${p}.parquet`)));
        // Every few parts, this thread waits on one: returned buffers are then built in while
        // other parts are still out.
        if (p % 5 === 4) await written[p - 2];
      }
      await Promise.all(written);
    } finally {
      await pool.close();
    }
    expect(pool.counts.thread).toBeGreaterThan(0);
    expect(pool.counts.inline).toBeGreaterThan(0);
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
    // Its length is one builders ask for.
    bytesOf(65536);
    await encodeInline(partOf([foreign]), join(dir, "inline.parquet"));
    // Were the shared buffer kept, the next batch of its size class would be built in it.
    for (let p = 0; p < 8; p++) builder.batch(p, 400);
    bytesOf(65536).fill(9);
    expect(shared.subarray(0, 60)).toEqual(text);
    expect(shared[100]).toBe(0);
    expect(columnOf("inline.parquet", "thread_name")).toEqual(Array(20).fill("abc"));
    expect(columnOf("inline.parquet", "track_id")).toEqual(
      Array.from({ length: 20 }, (_, row) => cell(1, row, 0)),
    );
  });
});
