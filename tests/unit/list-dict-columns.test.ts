/** list<utf8> columns as dictionary indices: the stacks' frame id paths. */
import { describe, expect, test } from "bun:test";
import { listItems } from "../../src/adapters/common/batch-table-buffer.ts";
import {
  Int64Builder,
  ListDictUtf8Builder,
  ListUtf8Builder,
  Utf8Builder,
} from "../../src/adapters/common/column-builders.ts";
import { listUtf8Rows } from "../../src/analysis/list-columns.ts";
import {
  type ColumnBatch,
  type ColumnVector,
  sliceColumnBatch,
} from "../../src/domain/column-batch.ts";
import { Encoding, ParquetFile } from "parquet-wasm/esm";
import { initParquet, readParquet, writeParquet } from "../../src/storage/parquet.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

const enc = new TextEncoder();
const idOf = (key: number) => (key % 7 === 3 ? `fr_é${key}` : `fr_${key}`);

/** A builder over idOf that counts how often each key's bytes were asked for. */
function builder(capacity: number) {
  const asked = new Map<number, number>();
  const b = new ListDictUtf8Builder(capacity, {
    bytes: (key) => {
      asked.set(key, (asked.get(key) ?? 0) + 1);
      return enc.encode(idOf(key));
    },
  });
  return { b, asked };
}

/** Deterministic paths: `rows` lists of 0-40 keys below `range` (some empty). */
function paths(rows: number, range: number, seed: number): number[][] {
  let s = seed;
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: rows }, () =>
    Array.from({ length: Math.floor(random() * 41) }, () => Math.floor(random() * range)),
  );
}

/**
 * `stacks` rows whose frame_ids are `lists`, as dictionary indices (what stack-chunks.ts writes)
 * or, `plain`, as the ids themselves.
 */
function stacksBatch(lists: number[][], plain = false): ColumnBatch {
  const n = lists.length;
  const text = (value: (r: number) => string) => {
    const column = new Utf8Builder(n, 16 * n);
    for (let r = 0; r < n; r++) column.set(r, enc.encode(value(r)));
    return column.build(n);
  };
  const number = (value: (r: number) => number | null) => {
    const column = new Int64Builder(n);
    for (let r = 0; r < n; r++) {
      const v = value(r);
      if (v === null) column.setNull(r);
      else column.set(r, v);
    }
    return column.build(n);
  };
  let frameIds: ColumnVector;
  if (plain) {
    const column = new ListUtf8Builder(n);
    lists.forEach((list, r) => {
      for (const key of list) column.addItem(enc.encode(idOf(key)));
      column.endRow(r);
    });
    frameIds = column.build(n);
  } else {
    const { b } = builder(n);
    lists.forEach((list, r) => {
      b.addItems(list, list.length);
      b.endRow(r);
    });
    frameIds = b.build(n);
  }
  const noTrack = new Utf8Builder(n, 0);
  for (let r = 0; r < n; r++) noTrack.setNull(r);
  return {
    table: "stacks",
    length: n,
    columns: {
      stack_id: text((r) => `st_${r}`),
      metric: text(() => "wall_time"),
      frame_ids: frameIds,
      leaf_frame_id: text(() => "fr_x"),
      sample_count: number((r) => r),
      duration_ns: number((r) => 10 * r),
      first_ts_ns: number(() => null),
      track_id: noTrack.build(n),
    },
  };
}

describe("dictionary list columns", () => {
  test("rows read back as their ids; a batch asks for each id once; reset starts afresh", () => {
    const { b, asked } = builder(200);
    // The second batch has keys past the first slots table (1024) and more distinct ids than
    // the first dictionary arrays hold (256).
    for (const [batch, range] of [
      [0, 12],
      [1, 5000],
    ] as const) {
      asked.clear();
      const lists = paths(200, range, 11 + batch);
      lists.forEach((list, r) => {
        // Items come in two calls for some rows: a row is open until endRow.
        const half = list.length >> 1;
        b.addItems(list, half);
        b.addItems(list.slice(half), list.length - half);
        b.endRow(r);
      });
      const vector = b.build(lists.length);
      if (vector.type !== "list_utf8_dict")
        throw new Error(`not a dictionary list: ${vector.type}`);
      expect(lists.map((_, r) => listItems(vector, r))).toEqual(lists.map((l) => l.map(idOf)));
      const distinct = new Set(lists.flat());
      expect(vector.dictOffsets.length - 1).toBe(distinct.size);
      expect([...asked.keys()].sort((x, y) => x - y)).toEqual([...distinct].sort((x, y) => x - y));
      for (const count of asked.values()) expect(count).toBe(1);
      b.reset();
    }
  });

  test("batches with different dictionaries, one cut in two, make a part that reads back as its lists", async () => {
    await initParquet();
    const firstLists = paths(50, 30, 3);
    const secondLists = paths(40, 300, 4);
    const second = stacksBatch(secondLists);
    const pieces = [
      stacksBatch(firstLists),
      sliceColumnBatch(second, 0, 17),
      sliceColumnBatch(second, 17, 40),
    ];
    const expected = [...firstLists, ...secondLists].map((l) => l.map(idOf));
    const back = readParquet(writeParquet(columnBatchesToTable("stacks", TEST_PROVENANCE, pieces)));
    const column = back.getChild("frame_ids")!;
    expect([...listUtf8Rows(column)]).toEqual(expected);
    // Arrow's own accessor agrees (what single-row readers use).
    expect(Array.from({ length: back.numRows }, (_, r) => Array.from(column.get(r)!))).toEqual(
      expected,
    );
    expect(Array.from(back.getChild("sample_count")!, Number)).toEqual([
      ...firstLists.map((_, r) => r),
      ...secondLists.map((_, r) => r),
    ]);
  });

  test("plain and dictionary lists of the same paths read back alike", async () => {
    await initParquet();
    const lists = paths(60, 50, 9);
    const read = (batch: ColumnBatch) =>
      readParquet(writeParquet(columnBatchesToTable("stacks", TEST_PROVENANCE, [batch])));
    const fromPlain = read(stacksBatch(lists, true));
    const fromDictionary = read(stacksBatch(lists));
    expect(fromPlain.getChild("frame_ids")!.type.children[0]!.type.toString()).toBe("Utf8");
    expect([...listUtf8Rows(fromDictionary.getChild("frame_ids")!)]).toEqual([
      ...listUtf8Rows(fromPlain.getChild("frame_ids")!),
    ]);
  });

  test("the stored lists' strings are dictionary-encoded; high-cardinality columns are not", async () => {
    await initParquet();
    const bytes = writeParquet(
      columnBatchesToTable("stacks", TEST_PROVENANCE, [stacksBatch(paths(300, 20, 5))]),
    );
    const file = await ParquetFile.fromFile(new Blob([bytes]));
    const encodings = new Map(
      file
        .metadata()
        .rowGroup(0)
        .columns()
        .map((c) => [c.columnPath().join("."), c.encodings()]),
    );
    const dictionary = (path: string) => {
      const used = encodings.get(path);
      if (!used) throw new Error(`no column ${path} in ${[...encodings.keys()].join(", ")}`);
      return used.includes(Encoding.RLE_DICTIONARY) || used.includes(Encoding.PLAIN_DICTIONARY);
    };
    expect(dictionary("frame_ids.list.item")).toBe(true);
    expect(dictionary("metric")).toBe(true);
    expect(dictionary("stack_id")).toBe(false);
    // A leaf is one of the few frames: handed over as indices, stored dictionary-encoded.
    expect(dictionary("leaf_frame_id")).toBe(true);
    file.free();
  });
});
