/**
 * Spilled runs (trace-events/run-codec.ts): blocks are cut by events and by args bytes, so
 * the merge's read buffer per run stays small whatever the args, and every event reads back
 * as written. Row batches of trace_events are cut by args bytes as well.
 */
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import type { SpillFile } from "../../src/adapters/adapter.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import {
  BLOCK_ARGS_BYTES,
  BLOCK_EVENTS,
  RunCursor,
  RunWriter,
} from "../../src/adapters/trace-events/run-codec.ts";
import { TraceColumns } from "../../src/adapters/trace-events/trace-columns.ts";
import {
  BATCH_ARGS_BYTES,
  ROWS_PER_BATCH,
} from "../../src/adapters/trace-events/trace-row-writer.ts";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import { runStream, streamedTableRows } from "./stream-harness.ts";

/** `n` events whose args are absent, small, or now and then larger than a block's bound. */
function columns(n: number, seed: number): TraceColumns {
  const random = mulberry32(seed);
  const cols = new TraceColumns();
  for (let k = 0; k < n; k++) {
    const i = cols.add(k);
    cols.track.array[i] = k % 3;
    cols.startNs.array[i] = Math.floor(random() * 1e6);
    cols.name.array[i] = k % 7;
    const r = random();
    const size = r < 0.3 ? -1 : r < 0.995 ? Math.floor(random() * 120) : BLOCK_ARGS_BYTES + 500;
    if (size >= 0) cols.argsRef.array[i] = cols.args.add(new Uint8Array(size).fill(k % 251));
  }
  return cols;
}

/** The blocks a file was written as: each is a header append and a body append. */
function recording(file: SpillFile): { blocks: [number, number][] } {
  const blocks: [number, number][] = [];
  const append = file.append.bind(file);
  let header = true;
  file.append = (bytes) => {
    if (header) {
      const h = new Int32Array(bytes.slice().buffer);
      blocks.push([h[0]!, h[1]!]);
    }
    header = !header;
    append(bytes);
  };
  return { blocks };
}

function readBack(file: SpillFile, cols: TraceColumns, order: Int32Array): number {
  const cursor = new RunCursor(file);
  let k = 0;
  let largest = 0;
  while (cursor.next()) {
    const i = order[k++]!;
    expect(cursor.v.seq[cursor.i]).toBe(cols.seq.array[i]!);
    expect(cursor.v.start[cursor.i]).toBe(cols.startNs.array[i]!);
    expect(cursor.v.name[cursor.i]).toBe(cols.name.array[i]!);
    const ref = cols.argsRef.array[i]!;
    const args = cursor.args();
    if (ref < 0) expect(args).toBeNull();
    else expect(args).toEqual(cols.args.get(ref));
    largest = Math.max(largest, (cursor as unknown as { buffer: ArrayBuffer }).buffer.byteLength);
  }
  expect(k).toBe(order.length);
  return largest;
}

describe("spilled runs", () => {
  test("blocks end at BLOCK_EVENTS events or at BLOCK_ARGS_BYTES of args; every event reads back", () => {
    const cols = columns(9000, 5);
    const order = Int32Array.from({ length: cols.length }, (_, k) => cols.length - 1 - k);
    const file = new MemorySpillSpace().create();
    const { blocks } = recording(file);
    new RunWriter().write(file, cols, order);
    expect(blocks.reduce((sum, [n]) => sum + n, 0)).toBe(9000);
    for (const [n, argsBytes] of blocks) {
      expect(n).toBeLessThanOrEqual(BLOCK_EVENTS);
      // Over the bound only as one event alone.
      if (argsBytes > BLOCK_ARGS_BYTES) expect(n).toBe(1);
    }
    // Cut by bytes, not only by events.
    expect(blocks.length).toBeGreaterThan(Math.ceil(9000 / BLOCK_EVENTS) + 5);
    const largest = readBack(file, cols, order);
    // The cursor's buffer is as large as the largest block (rounded up to 16 KiB), not twice it.
    expect(largest).toBeLessThanOrEqual((58 * BLOCK_EVENTS + BLOCK_ARGS_BYTES + 0x3fff) & ~0x3fff);
  });

  test("without the args bound, at most BLOCK_EVENTS events are one block whatever their args", () => {
    const cols = columns(BLOCK_EVENTS, 9);
    const order = Int32Array.from({ length: cols.length }, (_, k) => k);
    const file = new MemorySpillSpace().create();
    const { blocks } = recording(file);
    new RunWriter().write(file, cols, order, false);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]![1]).toBeGreaterThan(BLOCK_ARGS_BYTES);
    readBack(file, cols, order);
  });
});

describe("trace_events batches", () => {
  test("a batch closes at BATCH_ARGS_BYTES of args, before ROWS_PER_BATCH rows; rows unchanged", async () => {
    // 20,000 events of 1 KiB of args each: 16,384 of them made one 16 MiB batch, two parts' worth.
    const args = "x".repeat(1000);
    const events = Array.from({ length: 20_000 }, (_, k) => ({
      ph: "X",
      name: `e${k % 5}`,
      ts: k,
      dur: 1,
      pid: 1,
      tid: 1 + (k % 2),
      args: { k, args },
    }));
    const bytes = new TextEncoder().encode(JSON.stringify({ traceEvents: events }));
    const run = await runStream(chromeTraceAdapter, bytes);
    const batches = run.batches.filter((b) => b.table === "trace_events");
    expect(batches.reduce((sum, b) => sum + b.length, 0)).toBe(20_000);
    for (const b of batches) {
      const column = b.columns.args_json as { offsets: Int32Array };
      const argsBytes = column.offsets[b.length]! - column.offsets[0]!;
      expect(argsBytes).toBeLessThan(BATCH_ARGS_BYTES + 1100);
      expect(b.length).toBeLessThanOrEqual(ROWS_PER_BATCH);
    }
    expect(batches.length).toBeGreaterThanOrEqual(5);
    const rows = streamedTableRows(run, "trace_events");
    expect(rows.map((r) => JSON.parse(String(r.args_json)).k).sort((a, b) => a - b)).toEqual(
      events.map((e) => e.args.k),
    );
  });
});
