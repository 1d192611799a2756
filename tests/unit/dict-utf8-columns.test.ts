import { describe, expect, test } from "bun:test";
import { stringCell } from "../../src/adapters/common/batch-table-buffer.ts";
import { DictUtf8Builder } from "../../src/adapters/common/column-builders.ts";
import { tableBufferToBatch } from "../../src/adapters/common/table-buffer-batch.ts";
import { type ColumnBatch, sliceColumnBatch } from "../../src/domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { initParquet, readParquet, writeParquet } from "../../src/storage/parquet.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

const enc = new TextEncoder();
const words = ["main", "é-thread", "", "a longer value than twenty-four bytes", "x"];
const provenance = TEST_PROVENANCE;

const wordOf = (key: number) =>
  words[key % words.length]! + (key >= words.length ? String(key) : "");

/** A builder over `words` that counts how often each key's bytes were asked for. */
function builder(capacity: number) {
  const asked = new Map<number, number>();
  const b = new DictUtf8Builder(capacity, {
    bytes: (key) => {
      asked.set(key, (asked.get(key) ?? 0) + 1);
      return enc.encode(wordOf(key));
    },
  });
  return { b, asked };
}

/** Row values of one built batch (null where the cell is null). */
function cells(vector: ReturnType<DictUtf8Builder["build"]>, n: number): (string | null)[] {
  if (vector.type !== "utf8_dict") throw new Error(`not a dictionary vector: ${vector.type}`);
  return Array.from({ length: n }, (_, i) =>
    vector.valid && ((vector.valid[i >> 3]! >> (i & 7)) & 1) === 0 ? null : stringCell(vector, i),
  );
}

describe("dictionary string columns", () => {
  test("a batch holds each key's bytes once; a reset batch starts a dictionary of its own", () => {
    const { b, asked } = builder(64);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const batch of [0, 1, 2]) {
      asked.clear();
      const expected: (string | null)[] = [];
      // Keys past the first slots table's size (1024) grow it.
      const keys = batch === 2 ? [5000, 3, 5000, 1_000_000, 3] : [];
      const n = batch === 2 ? keys.length : 64;
      for (let row = 0; row < n; row++) {
        const key = batch === 2 ? keys[row]! : Math.floor(random() * (batch === 0 ? 12 : 40));
        if (batch !== 2 && random() < 0.1) {
          b.setNull(row);
          expected.push(null);
        } else {
          b.set(row, key);
          expected.push(wordOf(key));
        }
      }
      const vector = b.build(n);
      expect(cells(vector, n)).toEqual(expected);
      if (vector.type !== "utf8_dict") throw new Error("not a dictionary vector");
      const distinct = new Set(expected.filter((v) => v !== null));
      expect(vector.dictOffsets.length - 1).toBe(distinct.size);
      expect(vector.nullCount).toBe(expected.filter((v) => v === null).length);
      for (const count of asked.values()) expect(count).toBe(1);
      b.reset();
    }
  });

  /** `tracks` rows whose thread_name is a dictionary column. */
  function tracksBatch(from: number, rows: number): ColumnBatch {
    const buffer = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
    const { b } = builder(rows);
    for (let i = from; i < from + rows; i++) {
      buffer.append({
        track_id: `t${i}`,
        pid: String(i),
        tid: null,
        process_name: null,
        thread_name: "",
      });
      if (i % 9 === 4) b.setNull(i - from);
      else b.set(i - from, i % 13);
    }
    const batch = tableBufferToBatch(buffer);
    return { ...batch, columns: { ...batch.columns, thread_name: b.build(rows) } };
  }

  test("batches with different dictionaries make one part that reads back as its strings", async () => {
    await initParquet();
    const first = tracksBatch(0, 40);
    const second = tracksBatch(40, 25);
    // A batch cut at a part boundary keeps its dictionary on both sides.
    const pieces = [first, sliceColumnBatch(second, 0, 10), sliceColumnBatch(second, 10, 25)];
    const table = columnBatchesToTable("tracks", provenance, pieces);
    const back = readParquet(writeParquet(table));
    const expected = Array.from({ length: 65 }, (_, i) => (i % 9 === 4 ? null : wordOf(i % 13)));
    expect(Array.from(back.getChild("thread_name")!, (v) => v as string | null)).toEqual(expected);
    expect(Array.from(back.getChild("track_id")!, String)).toEqual(
      Array.from({ length: 65 }, (_, i) => `t${i}`),
    );
  });

  test("a part whose batches disagree on a column's encoding is refused, not cut short", () => {
    const plain = tableBufferToBatch(
      (() => {
        const buffer = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
        buffer.append({
          track_id: "a",
          pid: "1",
          tid: null,
          process_name: null,
          thread_name: null,
        });
        return buffer;
      })(),
    );
    expect(() => columnBatchesToTable("tracks", provenance, [tracksBatch(0, 3), plain])).toThrow(
      /do not share one schema/,
    );
  });
});
