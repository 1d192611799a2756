/**
 * Nesting on a thread of its own (workers/nest-offload.ts, nest-thread.ts): through a real
 * thread and its shared ring, a RemoteNester gives a SliceNester's depths, measures and stacks,
 * with the thread's spilled trie runs handed to the parser's scratch space; a stopped thread
 * leaves no scratch files, a failing one fails the parser with its reason, and the default
 * takes a thread only where a core is free for it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MeasureAccumulator } from "../../src/adapters/common/measure-accumulator.ts";
import { StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { RemoteNester } from "../../src/adapters/trace-events/remote-nester.ts";
import { SliceNester } from "../../src/adapters/trace-events/slice-nester.ts";
import { NEST_THREAD_MIN_CORES, useNestThread } from "../../workers/nest-choice.ts";
import { startNestOffload } from "../../workers/nest-offload.ts";
import { NEST_SLOTS } from "../../workers/nest-ring.ts";
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { FRAMES, nestAll, randomTracks, results } from "../nesting-cases.ts";

const root = mkdtempSync(join(tmpdir(), "flameox-nest-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scratch(name: string): { dir: string; space: FileSpillSpace } {
  const dir = join(root, name);
  mkdirSync(dir);
  return { dir, space: new FileSpillSpace(dir) };
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await Bun.sleep(10);
}

describe("nesting thread", () => {
  test("gives a SliceNester's depths, measures and stacks; its spilled runs come back", async () => {
    // Enough ops for the ring to fill several times over.
    const tracks = randomTracks(17, 60_000);
    const { dir, space } = scratch("equal");
    const spill = { space, maxStacks: 2000 };
    const here = {
      measures: new MeasureAccumulator("wall_time"),
      stacks: new StackTrie("wall_time", spill),
    };
    const local = new SliceNester(FRAMES, here.measures, here.stacks);
    const expectedDepths = nestAll(local, tracks);
    const expected = results(here.measures, here.stacks);
    expect(readdirSync(dir)).toEqual([]);

    const offload = startNestOffload(space, dir);
    const there = {
      measures: new MeasureAccumulator("wall_time"),
      stacks: new StackTrie("wall_time", spill),
    };
    const channel = offload.open(FRAMES, "wall_time", spill);
    expect(channel).not.toBeNull();
    const remote = new RemoteNester(channel!, there.measures, there.stacks);
    expect(nestAll(remote, tracks)).toEqual(expectedDepths);
    await remote.settled();
    expect(offload.opened).toBe(1);
    // The thread's trie spilled; its runs are now files of the parser's space.
    const adopted = readdirSync(dir);
    expect(adopted.length).toBeGreaterThan(0);
    expect(adopted.every((name) => name.startsWith("nest-spill-"))).toBe(true);
    expect(results(there.measures, there.stacks)).toEqual(expected);
    space.disposeAll();
    expect(readdirSync(dir)).toEqual([]);
    expect(tracks.flat().length / 32768).toBeGreaterThan(NEST_SLOTS);
  }, 60_000);

  test("a stopped thread deletes what it spilled", async () => {
    const { dir, space } = scratch("stopped");
    const spill = { space, maxStacks: 500 };
    const offload = startNestOffload(space, dir);
    const remote = new RemoteNester(
      offload.open(FRAMES, "wall_time", spill)!,
      new MeasureAccumulator("wall_time"),
      new StackTrie("wall_time", spill),
    );
    // More than a chunk of ops: some reach the thread before it is stopped.
    nestAll(remote, randomTracks(2, 10_000));
    await until(() => readdirSync(dir).length > 0);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    offload.closeAll();
    await until(() => readdirSync(dir).length === 0, 20_000);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  test("a failing thread fails the parser with its reason", async () => {
    const { dir, space } = scratch("failing");
    const offload = startNestOffload(space, dir);
    const channel = offload.open(FRAMES, "wall_time")!;
    channel.chunk().set([-5, 0, 0]);
    channel.send(1);
    await expect(channel.finish()).rejects.toThrow("nesting thread: nesting: unknown op -5");
    expect(() => channel.chunk()).toThrow("The slice nesting thread failed");
  });

  test("a thread that applies nothing is given up after the stall time, not waited for", async () => {
    const { dir, space } = scratch("stalled");
    // A thread that takes the ring and never reads it (one that never started looks the same).
    const idle = join(root, "idle-thread.ts");
    writeFileSync(idle, "self.onmessage = () => {};\n");
    const offload = startNestOffload(space, dir, { thread: idle, stallMs: 300 });
    const full = offload.open(FRAMES, "wall_time")!;
    for (let k = 0; k < NEST_SLOTS; k++) {
      full.chunk();
      full.send(1);
    }
    const started = Date.now();
    expect(() => full.chunk()).toThrow(
      "The slice nesting thread stopped: no chunk applied in 0.3 s",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const ending = offload.open(FRAMES, "wall_time")!;
    ending.chunk();
    ending.send(1);
    await expect(ending.finish()).rejects.toThrow("no chunk applied in 0.3 s");
    offload.closeAll();
  });

  test("another scratch space than the extraction's gets no thread", () => {
    const { dir, space } = scratch("other");
    const offload = startNestOffload(space, dir);
    expect(offload.open(FRAMES, "wall_time", { space: new FileSpillSpace(dir) })).toBeNull();
    expect(offload.opened).toBe(0);
  });

  test("by default a thread where a core is free for it; 0 never; 1 whenever threads run", () => {
    expect(useNestThread(-1, true, NEST_THREAD_MIN_CORES)).toBe(true);
    expect(useNestThread(-1, true, NEST_THREAD_MIN_CORES - 1)).toBe(false);
    expect(useNestThread(1, true, 1)).toBe(true);
    expect(useNestThread(0, true, 64)).toBe(false);
    for (const setting of [-1, 0, 1]) expect(useNestThread(setting, false, 64)).toBe(false);
  });
});
