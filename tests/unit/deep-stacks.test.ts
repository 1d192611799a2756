/**
 * Slices nested deeper than MAX_STACK_FRAMES (src/adapters/trace-events/slice-nester.ts): their
 * depths, measures and call edges are what they would be without the bound (computed here from
 * the slices themselves), only their stacks stop at MAX_STACK_FRAMES frames; a RemoteNester
 * counts them as the SliceNester does; stack rows close their batch at a byte budget, however
 * deep; and a Chrome trace of begins that never end imports with its stacks cut and says so.
 */
import { describe, expect, test } from "bun:test";
import type { NestChannel } from "../../src/adapters/adapter.ts";
import { MeasureAccumulator } from "../../src/adapters/common/measure-accumulator.ts";
import { writeStackChunks } from "../../src/adapters/common/stack-chunks.ts";
import { StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import {
  NestReplay,
  OPS_PER_CHUNK,
  RemoteNester,
} from "../../src/adapters/trace-events/remote-nester.ts";
import { MAX_STACK_FRAMES, SliceNester } from "../../src/adapters/trace-events/slice-nester.ts";
import { type ColumnBatch, columnBatchArrays } from "../../src/domain/column-batch.ts";
import { numberedFrames } from "../adapters/numbered-frames.ts";
import { runStream, streamedRows, streamedTableRows } from "../adapters/stream-harness.ts";

const FRAMES = 7;
const CHAIN = MAX_STACK_FRAMES + 44;

/** A chain of CHAIN slices, each inside the last (frame = level % 7), ending in two leaves. */
function chain(): [number, number, number][] {
  const slices: [number, number, number][] = [];
  for (let d = 0; d < CHAIN; d++) slices.push([d % FRAMES, d, 100_000 - 2 * d]);
  const leafStart = CHAIN + 10;
  slices.push([3, leafStart, 5], [4, leafStart + 5, 7]);
  return slices;
}

function nest(nester: SliceNester | RemoteNester): number[] {
  nester.beginTrack(0);
  const depths = chain().map(([frame, start, dur]) => nester.push(frame, start, dur));
  nester.endTrack();
  return depths;
}

function loopback(): NestChannel {
  const replay = new NestReplay(FRAMES, "wall_time");
  const ops = new Float64Array(3 * OPS_PER_CHUNK);
  return {
    chunk: () => ops,
    send: (count: number) => replay.apply(ops, count),
    finish: async () => replay.finish(),
    close() {},
  };
}

describe("slices nested past MAX_STACK_FRAMES", () => {
  test("depths, measures and edges as without the bound; stacks cut at the bound", async () => {
    const measures = new MeasureAccumulator("wall_time");
    const stacks = new StackTrie("wall_time");
    const nester = new SliceNester(FRAMES, measures, stacks);
    const depths = nest(nester);
    expect(depths).toEqual([...Array.from({ length: CHAIN }, (_, d) => d), CHAIN, CHAIN]);
    // The two leaves and the chain's slices from MAX_STACK_FRAMES on.
    expect(nester.deepSlices).toBe(CHAIN - MAX_STACK_FRAMES + 2);

    // Expected from the slices: each level's child is the next level (the leaves under the last).
    const slices = chain();
    const selfNs = new Array<number>(FRAMES).fill(0);
    const edges = new Map<string, [number, number]>();
    const edge = (parent: number, child: number, dur: number) => {
      const key = `${parent}>${child}`;
      const e = edges.get(key) ?? [0, 0];
      edges.set(key, [e[0] + 1, e[1] + dur]);
    };
    for (let d = 0; d < CHAIN; d++) {
      const [frame, , dur] = slices[d]!;
      const children = d < CHAIN - 1 ? [slices[d + 1]!] : slices.slice(CHAIN);
      selfNs[frame]! += dur - children.reduce((sum, c) => sum + c[2], 0);
      for (const c of children) edge(frame, c[0], c[2]);
    }
    selfNs[3]! += 5;
    selfNs[4]! += 7;
    const parts = measures.handOver();
    const track = parts.tracks[0]!;
    expect(track.selfNs.slice(0, FRAMES)).toEqual(selfNs);
    // Each frame's slices nest inside its outermost one, whose span is its inclusive time.
    expect(track.inclusiveNs.slice(0, FRAMES)).toEqual(
      Array.from({ length: FRAMES }, (_, f) => slices[f]![2]),
    );
    const got = new Map<string, [number, number]>();
    parts.edgeParent.forEach((p, i) =>
      got.set(`${p}>${parts.edgeChild[i]}`, [parts.edgeCount[i]!, parts.edgeNs[i]!]),
    );
    expect(got).toEqual(edges);

    // One stack row: the leaves' time, on the path of the chain's first MAX_STACK_FRAMES slices.
    const rows = [...stacks.stackRows()].map((r) => ({ ...r, path: [...r.path] }));
    expect(rows).toEqual([
      {
        path: Array.from({ length: MAX_STACK_FRAMES }, (_, d) => d % FRAMES),
        count: 2,
        durationNs: 12,
        firstRelNs: CHAIN + 10,
        track: 0,
      },
    ]);
  });

  test("a trie that spills on the way gives the same stacks (open paths interned again, cut)", async () => {
    const rowsOf = (stacks: StackTrie) =>
      [...stacks.stackRows()].map((r) => ({ ...r, path: [...r.path] }));
    const whole = new StackTrie("wall_time");
    nest(new SliceNester(FRAMES, new MeasureAccumulator("wall_time"), whole));
    const spilling = new StackTrie("wall_time", { space: new MemorySpillSpace(), maxStacks: 50 });
    nest(new SliceNester(FRAMES, new MeasureAccumulator("wall_time"), spilling));
    expect(spilling.epoch).toBeGreaterThan(0);
    expect(rowsOf(spilling)).toEqual(rowsOf(whole));
  });

  test("a RemoteNester counts the deep slices as the SliceNester does", async () => {
    const local = new SliceNester(
      FRAMES,
      new MeasureAccumulator("wall_time"),
      new StackTrie("wall_time"),
    );
    const localDepths = nest(local);
    const remote = new RemoteNester(
      loopback(),
      new MeasureAccumulator("wall_time"),
      new StackTrie("wall_time"),
    );
    expect(nest(remote)).toEqual(localDepths);
    await remote.settled();
    expect(remote.deepSlices).toBe(local.deepSlices);
  });

  test("stack rows close their batch at its byte budget", async () => {
    const frames = numberedFrames(FRAMES);
    const trie = new StackTrie("wall_time");
    for (let leaf = 0; leaf < 200; leaf++) {
      let stack = -1;
      for (let d = 0; d < 200; d++) stack = trie.child(stack, d % FRAMES);
      // 200 distinct tails of three frames.
      stack = trie.child(stack, leaf % FRAMES);
      stack = trie.child(stack, Math.floor(leaf / FRAMES) % FRAMES);
      trie.add(trie.child(stack, Math.floor(leaf / FRAMES ** 2) % FRAMES), 1, 1, leaf, 0);
    }
    const write = async (batchBytes: number) => {
      const batches: ColumnBatch[] = [];
      await writeStackChunks(
        { writeBatch: async (b) => void batches.push(b) },
        [trie],
        frames,
        new NsClock(0),
        () => ({ id: "t" }) as never,
        16384,
        batchBytes,
      );
      return batches;
    };
    const whole = await write(1 << 30);
    const budget = 16 << 10;
    const cut = await write(budget);
    expect(whole).toHaveLength(1);
    expect(cut.length).toBeGreaterThan(5);
    // At most, a row: 203 frame indices, as many ids of 23 bytes new to the batch's dictionary
    // with their offsets, its ids, counts and offsets.
    const rowBytes = 203 * (23 + 4 + 4) + 200;
    for (const [k, b] of cut.entries()) {
      // Every column's bytes, as the part writer counts them: a batch within the budget is never
      // cut across two Parquet parts.
      const bytes = columnBatchArrays(b).reduce((sum, a) => sum + a.byteLength, 0);
      expect(bytes).toBeLessThan(budget + rowBytes);
      if (k < cut.length - 1) expect(bytes).toBeGreaterThan(budget - rowBytes);
    }
    expect(streamedRows(cut, "stacks")).toEqual(streamedRows(whole, "stacks"));
  });

  test("shallow stack rows count their ids and numbers against the budget, not only frames", async () => {
    const width = 60;
    const frames = numberedFrames(width);
    const trie = new StackTrie("wall_time");
    // Distinct stacks two frames deep: their ids, leaves and counts outweigh their frame lists.
    for (let a = 0; a < width; a++)
      for (let b = 0; b < width; b++) trie.add(trie.child(trie.child(-1, a), b), 1, 1, a, 0);
    const batches: ColumnBatch[] = [];
    const budget = 16 << 10;
    await writeStackChunks(
      { writeBatch: async (batch) => void batches.push(batch) },
      [trie],
      frames,
      new NsClock(0),
      () => ({ id: "track-1" }) as never,
      16384,
      budget,
    );
    expect(batches.length).toBeGreaterThan(3);
    for (const b of batches) {
      const bytes = columnBatchArrays(b).reduce((sum, a) => sum + a.byteLength, 0);
      expect(bytes).toBeLessThan(budget + 512);
    }
  });

  test("a Chrome trace of begins that never end: rows at their depth, stacks cut, said so", async () => {
    const events: object[] = [];
    for (let d = 0; d < CHAIN; d++)
      events.push({ ph: "B", name: `level${d % FRAMES}`, pid: 1, tid: 1, ts: d });
    events.push({ ph: "X", name: "leaf", pid: 1, tid: 1, ts: CHAIN + 1, dur: 3 });
    const bytes = new TextEncoder().encode(JSON.stringify({ traceEvents: events }));
    const run = await runStream(adapterByName("chrome-trace")!, bytes);
    const limitation = run.evidence.limitations.find((l) => l.code === "deep_stacks_cut");
    expect(limitation?.count).toBe(CHAIN - MAX_STACK_FRAMES + 1);
    const rows = streamedTableRows(run, "trace_events");
    expect(Math.max(...rows.map((r) => Number(r.depth)))).toBe(CHAIN);
    const stackRows = streamedTableRows(run, "stacks");
    expect(stackRows.length).toBeGreaterThan(0);
    for (const s of stackRows)
      expect((s.frame_ids as string[]).length).toBeLessThanOrEqual(MAX_STACK_FRAMES);
    expect(Math.max(...stackRows.map((s) => (s.frame_ids as string[]).length))).toBe(
      MAX_STACK_FRAMES,
    );
  });
});
