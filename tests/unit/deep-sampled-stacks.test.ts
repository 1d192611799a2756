/**
 * Stack paths deeper than MAX_STACK_FRAMES in the stack trie itself (src/adapters/common/
 * stack-trie.ts), whoever interns them: a path goes on no deeper than its ancestor at the
 * bound, which holds its samples; a trie that spills or is handed over keeps the bound; and
 * imports of sampled formats, tree-shaped (a V8 cpuprofile's call chain) or path-shaped
 * (collapsed stacks), keep their measures whole, cut their stacks, and say so.
 */
import { describe, expect, test } from "bun:test";
import { MAX_STACK_FRAMES, ROOT_STACK, StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { bufferRows, runStream, streamedTableRows } from "../adapters/stream-harness.ts";

const DEPTH = MAX_STACK_FRAMES + 44;

/** Rows as [path, count, duration], in a stable order. */
function rows(trie: StackTrie): [string, number, number][] {
  const out: [string, number, number][] = [];
  for (const row of trie.stackRows()) out.push([row.path.join(","), row.count, row.durationNs]);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** One sample at every depth of a chain of DEPTH distinct frames, each path walked from the root. */
function fill(trie: StackTrie, from = 0, to = DEPTH, spillEvery = 0): void {
  for (let d = from; d < to; d++) {
    let stack = ROOT_STACK;
    for (let k = 0; k <= d; k++) stack = trie.child(stack, k);
    trie.add(stack, 1, 10, d, 0);
    if (spillEvery > 0 && d % spillEvery === 0) trie.spillIfFull();
  }
}

describe("stack paths past MAX_STACK_FRAMES", () => {
  test("a path ends at its ancestor at the bound, which holds the deeper samples", () => {
    const trie = new StackTrie("cpu_time");
    fill(trie);
    const out = rows(trie);
    expect(out.length).toBe(MAX_STACK_FRAMES);
    const deepest = out.find(([path]) => path.split(",").length === MAX_STACK_FRAMES)!;
    expect(deepest[1]).toBe(DEPTH - MAX_STACK_FRAMES + 1);
    expect(deepest[2]).toBe(10 * (DEPTH - MAX_STACK_FRAMES + 1));
    for (const [path, count] of out)
      if (path.split(",").length < MAX_STACK_FRAMES) expect(count).toBe(1);
    expect(trie.deepStacks).toBe(1);
  });

  test("a trie that spills on the way, or is handed over and grows on, keeps the bound", () => {
    const whole = new StackTrie("cpu_time");
    fill(whole);
    const spilling = new StackTrie("cpu_time", { space: new MemorySpillSpace(), maxStacks: 40 });
    fill(spilling, 0, DEPTH, 7);
    expect(rows(spilling)).toEqual(rows(whole));
    expect(spilling.deepStacks).toBeGreaterThanOrEqual(1);

    const first = new StackTrie("cpu_time");
    fill(first, 0, MAX_STACK_FRAMES + 10);
    const second = new StackTrie("cpu_time");
    second.adopt(first.handOver());
    fill(second, MAX_STACK_FRAMES + 10, DEPTH);
    expect(rows(second)).toEqual(rows(whole));
    // The stack at the bound absorbed paths before the hand-over and after it.
    expect(second.deepStacks).toBe(2);
  });

  test("a cpuprofile of one call chain deeper than the bound: measures whole, stacks cut", async () => {
    const nodes = Array.from({ length: DEPTH }, (_, i) => ({
      id: i + 1,
      callFrame: {
        functionName: `f${i}`,
        scriptId: "1",
        url: "a.js",
        lineNumber: i,
        columnNumber: 0,
      },
      hitCount: 1,
      children: i + 1 < DEPTH ? [i + 2] : [],
    }));
    const samples = nodes.map((n) => n.id);
    const profile = {
      nodes,
      startTime: 0,
      endTime: DEPTH * 100,
      samples,
      timeDeltas: samples.map(() => 100),
    };
    const run = await runStream(
      adapterByName("v8-cpuprofile")!,
      new TextEncoder().encode(JSON.stringify(profile)),
    );
    const { tables, limitations } = run.evidence;
    expect(limitations.find((l) => l.code === "deep_stack_paths_cut")?.count).toBe(1);
    const stacks = bufferRows(tables.stacks!);
    expect(stacks.length).toBe(MAX_STACK_FRAMES);
    const lengths = stacks.map((s) => (s.frame_ids as string[]).length);
    expect(Math.max(...lengths)).toBe(MAX_STACK_FRAMES);
    const bottom = stacks.find((s) => (s.frame_ids as string[]).length === MAX_STACK_FRAMES)!;
    expect(Number(bottom.sample_count)).toBe(DEPTH - MAX_STACK_FRAMES + 1);
    // Measures from the whole chain: f_i is the leaf of one sample and on the path of the
    // samples at depth i and below.
    const frames = new Map(bufferRows(tables.frames!).map((f) => [f.frame_id, f.function]));
    const measures = bufferRows(tables.frame_measurements!);
    expect(measures.length).toBe(DEPTH);
    for (const m of measures) {
      const i = Number(String(frames.get(m.frame_id)).slice(1));
      expect([Number(m.self_samples), Number(m.inclusive_samples)]).toEqual([1, DEPTH - i]);
    }
  });

  test("collapsed stacks with a line deeper than the bound: measures whole, stacks cut", async () => {
    const deep = Array.from({ length: DEPTH }, (_, i) => `g${i}`).join(";");
    const text = `${deep} 5\ng0;g1;g2 3\n`;
    const run = await runStream(adapterByName("collapsed-stacks")!, new TextEncoder().encode(text));
    expect(run.evidence.limitations.find((l) => l.code === "deep_stack_paths_cut")?.count).toBe(1);
    const stacks = streamedTableRows(run, "stacks");
    expect(stacks.map((s) => (s.frame_ids as string[]).length).sort((a, b) => a - b)).toEqual([
      3,
      MAX_STACK_FRAMES,
    ]);
    const frames = new Map(
      bufferRows(run.evidence.tables.frames!).map((f) => [f.frame_id, f.function]),
    );
    const leaf = bufferRows(run.evidence.tables.frame_measurements!).find(
      (m) => frames.get(m.frame_id) === `g${DEPTH - 1}`,
    )!;
    expect([Number(leaf.self_samples), Number(leaf.inclusive_samples)]).toEqual([5, 5]);
  });
});
