/**
 * Slice nesting through a RemoteNester (src/adapters/trace-events/remote-nester.ts) gives what a
 * SliceNester here gives: every depth, the measures and call edges, and the stack rows, also
 * when the other side's trie spills. The channel here is in-process (a NestReplay behind it);
 * tests/workers/nest-offload.test.ts runs the same through a real thread.
 */
import { describe, expect, test } from "bun:test";
import type { NestChannel, SpillSpace } from "../../src/adapters/adapter.ts";
import { MeasureAccumulator } from "../../src/adapters/common/measure-accumulator.ts";
import { StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import {
  NestReplay,
  OPS_PER_CHUNK,
  RemoteNester,
} from "../../src/adapters/trace-events/remote-nester.ts";
import { SliceNester } from "../../src/adapters/trace-events/slice-nester.ts";
import { FRAMES, nestAll, randomTracks, results } from "../nesting-cases.ts";

/** An in-process channel: a NestReplay applies each chunk as it is sent. */
function loopback(space?: SpillSpace, maxStacks?: number): NestChannel & { chunks: number } {
  const replay = new NestReplay(FRAMES, "wall_time", space ? { space, maxStacks } : undefined);
  const ops = new Float64Array(3 * OPS_PER_CHUNK);
  const channel = {
    chunks: 0,
    chunk: () => ops,
    send(count: number) {
      channel.chunks++;
      replay.apply(ops, count);
    },
    finish: async () => replay.finish(),
    close() {},
  };
  return channel;
}

describe("remote nester", () => {
  for (const maxStacks of [undefined, 50, 1000]) {
    test(`depths, measures and stacks equal a SliceNester's (trie spilling at ${maxStacks})`, async () => {
      const tracks = randomTracks(11, 9000);
      const space = maxStacks === undefined ? undefined : new MemorySpillSpace();
      const spill = space ? { space, maxStacks } : undefined;
      const here = {
        measures: new MeasureAccumulator("wall_time"),
        stacks: new StackTrie("wall_time", spill),
      };
      const local = new SliceNester(FRAMES, here.measures, here.stacks);
      const expectedDepths = nestAll(local, tracks);
      await local.settled();
      // A bounded trie spilled (its epoch moves at each spill).
      expect(here.stacks.epoch > 0).toBe(maxStacks !== undefined);
      const there = {
        measures: new MeasureAccumulator("wall_time"),
        stacks: new StackTrie("wall_time", spill),
      };
      const channel = loopback(space, maxStacks);
      const remote = new RemoteNester(channel, there.measures, there.stacks);
      const depths = nestAll(remote, tracks);
      // The depths came back as the ops went, a chunk at a time.
      expect(channel.chunks).toBe(1);
      expect(depths).toEqual(expectedDepths);
      expect(Math.max(...depths)).toBeGreaterThan(3);
      await remote.settled();
      expect(channel.chunks).toBe(2);
      expect(remote.slices).toBe(local.slices);
      expect(results(there.measures, there.stacks)).toEqual(results(here.measures, here.stacks));
    });
  }

  test("an adopted trie interns again: a known path finds its stack, a new one is added", async () => {
    const tracks = randomTracks(3, 200);
    const trie = new StackTrie("wall_time");
    const remote = new RemoteNester(loopback(), new MeasureAccumulator("wall_time"), trie);
    nestAll(remote, tracks);
    await remote.settled();
    const size = trie.size;
    expect(size).toBeGreaterThan(10);
    const [first] = trie.stackRows();
    let at = -1;
    for (const frame of first!.path) at = trie.child(at, frame);
    expect(trie.size).toBe(size);
    trie.child(at, FRAMES + 1);
    expect(trie.size).toBe(size + 1);
  });

  test("an adopted accumulator finds its edges again and adds new ones after them", async () => {
    const measures = new MeasureAccumulator("wall_time");
    const remote = new RemoteNester(loopback(), measures, new StackTrie("wall_time"));
    nestAll(remote, randomTracks(4, 300));
    await remote.settled();
    const before = measures.handOver();
    const edges = before.edgeParent.length;
    expect(edges).toBeGreaterThan(5);
    const adopted = new MeasureAccumulator("wall_time");
    adopted.adopt(before);
    expect(adopted.edge(before.edgeParent[3]!, before.edgeChild[3]!)).toBe(3);
    expect(adopted.edge(FRAMES + 1, FRAMES + 2)).toBe(edges);
  });

  test("a failure on the other side rejects `settled`; ops after the end are refused", async () => {
    const channel = loopback();
    channel.finish = async () => {
      throw new Error("nesting thread: disk full");
    };
    const remote = new RemoteNester(
      channel,
      new MeasureAccumulator("wall_time"),
      new StackTrie("wall_time"),
    );
    nestAll(remote, randomTracks(5, 10));
    await expect(remote.settled()).rejects.toThrow("disk full");
    await expect(remote.settled()).rejects.toThrow("settled twice");
  });
});
