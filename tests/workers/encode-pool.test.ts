import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableBufferToBatch } from "../../src/adapters/common/table-buffer-batch.ts";
import { type ColumnBatch, sliceColumnBatch } from "../../src/domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { initParquet, readParquet } from "../../src/storage/parquet.ts";
import {
  ENCODE_THREAD_MIN_BUDGET,
  ENCODE_THREAD_MIN_PAYLOAD,
  startEncodePool,
  THREAD_PARTS,
  useEncodeThread,
} from "../../workers/encode-pool.ts";
import { type PartContent, writeSyncedAsync } from "../../workers/table-parts.ts";
import { columnBatchesToTable } from "../../src/storage/column-batch-arrow.ts";
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { RunWriter } from "../../src/adapters/trace-events/run-codec.ts";
import { runOrder } from "../../src/adapters/trace-events/run-order.ts";
import {
  TraceColumns,
  type TraceColumnParts,
} from "../../src/adapters/trace-events/trace-columns.ts";
import { KIND_COMPLETE, KIND_EVENT } from "../../src/adapters/trace-events/event-kinds.ts";
import { TEST_PROVENANCE } from "../helpers.ts";
import { threadCpuMs } from "../../workers/thread-cpu.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-encode-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const provenance = TEST_PROVENANCE;

/** `tracks` rows with nulls and multi-byte text, as a column batch. */
function trackBatch(rows: number, from = 0): ColumnBatch {
  const buffer = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
  for (let i = from; i < from + rows; i++) {
    buffer.append({
      track_id: `t${i}`,
      pid: String(i % 7),
      tid: i % 3 === 0 ? null : String(i),
      process_name: `proc-${i % 97}-é`,
      thread_name: i % 5 === 0 ? null : "main",
    });
  }
  return tableBufferToBatch(buffer);
}

/** A part of column batches (sent to the thread as their buffers). */
function part(batches: ColumnBatch[]): PartContent {
  return { table: "tracks", provenance, batches };
}

const enc = new TextEncoder();
const part4 = () => part([trackBatch(4)]);

const read = (file: string) => readParquet(readFileSync(join(dir, file)));
const column = (file: string, name: string) =>
  Array.from(read(file).getChild(name)!.toArray() as ArrayLike<unknown>);

describe("encode pool", () => {
  test(
    "the thread is used only from a 1 GiB memory budget and a 32 MiB payload (gzip " +
      "counting 4x)",
    () => {
      const big = ENCODE_THREAD_MIN_PAYLOAD;
      expect(useEncodeThread(512 * 2 ** 20, big, false)).toBe(false);
      expect(useEncodeThread(ENCODE_THREAD_MIN_BUDGET - 1, big, false)).toBe(false);
      expect(useEncodeThread(ENCODE_THREAD_MIN_BUDGET, big, false)).toBe(true);
      expect(useEncodeThread(8 * 2 ** 30, big, false)).toBe(true);
      expect(useEncodeThread(8 * 2 ** 30, big - 1, false)).toBe(false);
      expect(useEncodeThread(8 * 2 ** 30, big / 4, true)).toBe(true);
      expect(useEncodeThread(8 * 2 ** 30, big / 4 - 1, true)).toBe(false);
    },
  );

  test(
    "parts encoded on the thread, from column batches or Arrow IPC, read back as the rows " +
      "encoded inline",
    async () => {
      await initParquet();
      const inline = startEncodePool(false);
      const threaded = startEncodePool(true);
      expect(inline.threaded).toBe(false);
      expect(threaded.threaded).toBe(true);
      // The thread warms its encoder first, holding a place like a part (parquet-warm-up.ts).
      await threaded.warmedUp;
      try {
        await inline.encode(
          part([trackBatch(3000), trackBatch(2000, 3000)]),
          join(dir, "inline.parquet"),
        );
        // Three parts in flight at once, as TableParts allows: the thread takes THREAD_PARTS of
        // them (one waits while it encodes the first); the third waits for room, then goes to
        // the thread too, not to the caller's thread.
        const sent = [trackBatch(3000), trackBatch(2000, 3000)];
        const third = [
          threaded.encode(part(sent), join(dir, "thread-a.parquet")),
          threaded.encode(part([trackBatch(10)]), join(dir, "thread-b.parquet")),
          threaded.encode(part([trackBatch(4)]), join(dir, "thread-d.parquet")),
        ];
        expect(THREAD_PARTS).toBe(2);
        expect(threaded.counts).toEqual({ thread: 2, inline: 0 });
        await Promise.all(third);
        expect(threaded.counts).toEqual({ thread: 3, inline: 0 });
        // Once it has room again, the next part goes to the thread as well.
        await threaded.encode(part([trackBatch(7)]), join(dir, "thread-c.parquet"));
        expect(threaded.counts).toEqual({ thread: 4, inline: 0 });
        // The thread's own CPU (Linux says it): it warmed up and encoded four parts, and it is
        // not the caller's (which ran this test's other work too).
        const cpu = await threaded.threadCpu();
        expect(cpu).toBeGreaterThan(0);
        expect(cpu!).toBeLessThan(
          process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000,
        );
        expect(await inline.threadCpu()).toBeUndefined();
      } finally {
        await inline.close();
        await threaded.close();
      }
      for (const name of EVIDENCE_SCHEMAS.tracks.columns.map((c) => c.name))
        expect(column("thread-a.parquet", name)).toEqual(column("inline.parquet", name));
      expect(read("thread-a.parquet").numRows).toBe(5000);
      expect(read("thread-a.parquet").getChild("process_name")!.get(4999)).toBe("proc-52-é");
      expect(read("thread-a.parquet").getChild("tid")!.get(3000)).toBeNull();
      expect(read("thread-b.parquet").numRows).toBe(10);
      expect(read("thread-c.parquet").numRows).toBe(7);
      expect(read("thread-d.parquet").numRows).toBe(4);
    },
  );

  test(
    "the thread's finished parts make room at once, without the caller's event loop " +
      "turning: a parser between two awaits does not encode a part the idle thread could",
    async () => {
      await initParquet();
      const threaded = startEncodePool(true);
      try {
        // Warm the thread up (its start and parquet-wasm), then fill it.
        await threaded.encode(part([trackBatch(5)]), join(dir, "warm.parquet"));
        const first = threaded.encode(part([trackBatch(50)]), join(dir, "busy-a.parquet"));
        const second = threaded.encode(part([trackBatch(60)]), join(dir, "busy-b.parquet"));
        // Wait for both files without giving the event loop a turn, as a parser in a long
        // synchronous stretch does: the thread's replies stay unread. Promise jobs still run
        // (the parser awaits settled promises between batches): they post the parts.
        for (let i = 0; i < 50; i++) await null;
        const deadline = Date.now() + 10_000;
        const pause = new Int32Array(new SharedArrayBuffer(4));
        const written = (name: string) => {
          try {
            return read(name).numRows > 0;
          } catch {
            return false;
          }
        };
        while (!(written("busy-a.parquet") && written("busy-b.parquet")) && Date.now() < deadline)
          Atomics.wait(pause, 0, 0, 20);
        // The thread is done with both: the next part goes to it, not to this thread.
        const third = threaded.encode(part([trackBatch(70)]), join(dir, "busy-c.parquet"));
        expect(threaded.counts).toEqual({ thread: 4, inline: 0 });
        await Promise.all([first, second, third]);
        expect(read("busy-c.parquet").numRows).toBe(70);
      } finally {
        await threaded.close();
      }
    },
  );

  test("a part waiting for room on the thread leaves the caller's core idle", async () => {
    await initParquet();
    const threaded = startEncodePool(true);
    await threaded.warmedUp;
    // Built first: the wait below is the caller's only work.
    const big = [0, 1, 2].map((k) => part([trackBatch(60_000, k * 60_000)]));
    const last = part([trackBatch(10)]);
    try {
      const busy = big.map((p, k) => threaded.encode(p, join(dir, `busy-${k}.parquet`)));
      const cpuBefore = threadCpuMs();
      const waitedBefore = threaded.ms.waited;
      await threaded.encode(last, join(dir, "after-busy.parquet"));
      const cpu = threadCpuMs()! - cpuBefore!;
      const waited = threaded.ms.waited - waitedBefore;
      await Promise.all(busy);
      // The third big part and the last one each waited for the thread to finish one.
      expect(waited).toBeGreaterThan(100);
      // Sleeping costs ~3% of the wait; a spinning wait (Bun's Atomics.waitAsync) was all of it.
      expect(cpu).toBeLessThan(waited / 2);
      expect(threaded.counts.inline).toBe(0);
    } finally {
      await threaded.close();
    }
  });

  test(
    "a spool run written on the thread is the file the parser would write itself, and the " +
      "spill file counts its bytes; a run the thread has no room for is refused",
    async () => {
      const space = new FileSpillSpace(dir);
      const runOf = () => {
        const cols = new TraceColumns();
        // Three tracks interleaved and out of order, some events with args, one skipped.
        for (let i = 0; i < 5000; i++) {
          const k = cols.add(i);
          if (i === 17) continue;
          cols.kind.array[k] = i % 3 === 0 ? KIND_COMPLETE : KIND_EVENT;
          cols.track.array[k] = i % 3;
          cols.startNs.array[k] = (i * 7919) % 1000;
          cols.durNs.array[k] = i % 11;
          cols.name.array[k] = i % 5;
          cols.frame.array[k] = i % 4;
          if (i % 4 === 0) cols.argsRef.array[k] = cols.args.add(enc.encode(`{"i":${i}é}`));
        }
        return cols;
      };
      const here = space.create();
      const cols = runOf();
      new RunWriter().write(here, cols, runOrder(cols));
      const threaded = startEncodePool(true);
      try {
        const there = space.create();
        const taken = threaded.runOffload!.write(there, runOf());
        expect(taken).not.toBeNull();
        // One run out and a part: the thread is full, and the next run stays with the caller.
        const part = threaded.encode(part4(), join(dir, "beside-run.parquet"));
        expect(threaded.runOffload!.write(space.create(), runOf())).toBeNull();
        const [returned] = await Promise.all([taken, part]);
        expect(there.size).toBe(here.size);
        // The run's columns are moved back for the next run to be filled in: their capacity
        // kept, emptied, every column back to its default, as new columns are.
        const back = TraceColumns.fromParts(returned as TraceColumnParts);
        const sent = runOf();
        const fresh = new TraceColumns(sent.length);
        expect(back.length).toBe(0);
        expect(back.args.bytes).toBe(0);
        for (const name of [
          "kind",
          "track",
          "startNs",
          "durNs",
          "name",
          "frame",
          "argsRef",
        ] as const) {
          expect(back[name].array.length).toBeGreaterThanOrEqual(sent.length);
          // As arrays: a typed array's NaN (durNs's default) never equals another's.
          expect(Array.from(back[name].array.subarray(0, sent.length))).toEqual(
            Array.from(fresh[name].array.subarray(0, sent.length)),
          );
        }
        const bytes = (file: typeof here) => {
          const out = new Uint8Array(file.size);
          file.read(out, 0);
          return out;
        };
        expect(bytes(there)).toEqual(bytes(here));
        // Columns for a next run, made on the thread: as new ones made here.
        const made = TraceColumns.fromParts(
          (await threaded.runOffload!.spare!(3000)) as TraceColumnParts,
        );
        const here3000 = new TraceColumns(3000);
        expect(made.length).toBe(0);
        for (const name of ["seq", "kind", "track", "durNs", "threadNs", "argsRef"] as const)
          expect(Array.from(made[name].array)).toEqual(Array.from(here3000[name].array));
        // A file without a path (a memory spill) is never handed over.
        expect(threaded.runOffload!.write(new MemorySpillSpace().create(), runOf())).toBeNull();
      } finally {
        await threaded.close();
        space.disposeAll();
      }
    },
  );

  test("a part written off the calling thread is written whole, and a failed write rejects", async () => {
    // Larger than one write call may take, with every byte distinct from its neighbours.
    const bytes = Uint8Array.from({ length: 5 << 20 }, (_, i) => (i * 131 + (i >> 11)) & 0xff);
    await writeSyncedAsync(join(dir, "async.bin"), bytes);
    expect(new Uint8Array(readFileSync(join(dir, "async.bin")))).toEqual(bytes);
    await writeSyncedAsync(join(dir, "async.bin"), bytes.subarray(0, 10));
    expect(readFileSync(join(dir, "async.bin")).length).toBe(10);
    await expect(writeSyncedAsync(join(dir, "missing", "part.parquet"), bytes)).rejects.toThrow(
      /ENOENT/,
    );
  });

  test("a batch cut at any row keeps its values and nulls on both sides", () => {
    const batch = trackBatch(37);
    for (const cut of [0, 1, 7, 8, 9, 36, 37]) {
      const halves = [sliceColumnBatch(batch, 0, cut), sliceColumnBatch(batch, cut, 37)];
      const whole = columnBatchesToTable("tracks", provenance, [batch]);
      const split = columnBatchesToTable("tracks", provenance, halves);
      for (const name of EVIDENCE_SCHEMAS.tracks.columns.map((c) => c.name))
        expect(Array.from(split.getChild(name)!.toArray())).toEqual(
          Array.from(whole.getChild(name)!.toArray()),
        );
      expect(halves[1]!.columns.tid!.nullCount + halves[0]!.columns.tid!.nullCount).toBe(
        batch.columns.tid!.nullCount,
      );
    }
  });

  test("a list column cut at any row keeps each row's items", () => {
    const enc = new TextEncoder();
    const rows = [["a", "bé"], [], ["c"], ["dd", "e", "f"], ["g"]];
    const listOffsets = Int32Array.from([0, 2, 2, 3, 6, 7]);
    const items = rows.flat();
    const offsets = new Int32Array(items.length + 1);
    const data: number[] = [];
    items.forEach((item, i) => {
      data.push(...enc.encode(item));
      offsets[i + 1] = data.length;
    });
    const batch: ColumnBatch = {
      table: "stacks",
      length: rows.length,
      columns: {
        frame_ids: {
          type: "list_utf8",
          listOffsets,
          offsets,
          data: Uint8Array.from(data),
          valid: null,
          nullCount: 0,
        },
      },
    };
    const dec = new TextDecoder();
    const rowsOf = (b: ColumnBatch) => {
      const v = b.columns.frame_ids!;
      if (v.type !== "list_utf8") throw new Error("list expected");
      return Array.from({ length: b.length }, (_, r) =>
        Array.from({ length: v.listOffsets[r + 1]! - v.listOffsets[r]! }, (_, k) => {
          const item = v.listOffsets[r]! + k;
          return dec.decode(v.data.subarray(v.offsets[item]!, v.offsets[item + 1]!));
        }),
      );
    };
    for (let cut = 0; cut <= rows.length; cut++)
      expect([
        ...rowsOf(sliceColumnBatch(batch, 0, cut)),
        ...rowsOf(sliceColumnBatch(batch, cut, rows.length)),
      ]).toEqual(rows);
  });
});
