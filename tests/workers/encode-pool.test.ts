import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromArrays } from "apache-arrow";
import { initParquet, readParquet } from "../../src/storage/parquet.ts";
import { ENCODE_THREAD_MIN_BUDGET, ENCODE_THREAD_MIN_PAYLOAD, startEncodePool, useEncodeThread } from "../../workers/encode-pool.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-encode-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sampleTable(rows: number) {
  const names = Array.from({ length: rows }, (_, i) => `frame-${i % 97}-é`);
  return tableFromArrays({ id: Int32Array.from({ length: rows }, (_, i) => i * 3), name: names });
}

describe("encode pool", () => {
  test("the thread is used only from a 1 GiB memory budget and a 32 MiB payload (gzip counting 4x)", () => {
    const big = ENCODE_THREAD_MIN_PAYLOAD;
    expect(useEncodeThread(512 * 2 ** 20, big, false)).toBe(false);
    expect(useEncodeThread(ENCODE_THREAD_MIN_BUDGET - 1, big, false)).toBe(false);
    expect(useEncodeThread(ENCODE_THREAD_MIN_BUDGET, big, false)).toBe(true);
    expect(useEncodeThread(8 * 2 ** 30, big, false)).toBe(true);
    expect(useEncodeThread(8 * 2 ** 30, big - 1, false)).toBe(false);
    expect(useEncodeThread(8 * 2 ** 30, big / 4, true)).toBe(true);
    expect(useEncodeThread(8 * 2 ** 30, big / 4 - 1, true)).toBe(false);
  });

  test("a part encoded and written on the thread reads back as the same rows as one encoded inline", async () => {
    await initParquet();
    const table = sampleTable(5000);
    const inline = startEncodePool(false);
    const threaded = startEncodePool(true);
    expect(inline.threaded).toBe(false);
    expect(threaded.threaded).toBe(true);
    try {
      await inline.encode(table, join(dir, "inline.parquet"));
      // Two parts in flight at once, as TableParts allows: the second finds the thread busy and is encoded by the caller.
      await Promise.all([threaded.encode(sampleTable(5000), join(dir, "thread-a.parquet")), threaded.encode(sampleTable(10), join(dir, "thread-b.parquet"))]);
      expect(threaded.counts).toEqual({ thread: 1, inline: 1 });
      // Once the thread is free again it takes the next part.
      await threaded.encode(sampleTable(7), join(dir, "thread-c.parquet"));
      expect(threaded.counts).toEqual({ thread: 2, inline: 1 });
    } finally {
      await inline.close();
      await threaded.close();
    }
    const read = (file: string) => readParquet(readFileSync(join(dir, file)));
    const a = read("inline.parquet");
    const b = read("thread-a.parquet");
    expect(b.numRows).toBe(5000);
    expect(b.getChild("id")!.toArray()).toEqual(a.getChild("id")!.toArray());
    expect(b.getChild("name")!.toArray()).toEqual(a.getChild("name")!.toArray());
    expect(b.getChild("name")!.get(4999)).toBe("frame-52-é");
    expect(read("thread-b.parquet").numRows).toBe(10);
    expect(read("thread-c.parquet").numRows).toBe(7);
  });
});
