/**
 * The flame tree, box merging, differential deltas and cross-format function matching, on hand-made
 * stacks.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FrameInfo } from "../../src/analysis/hotspots.ts";
import {
  annotateDelta,
  boxCount,
  buildFlameTree,
  mergeSmallBoxes,
} from "../../src/analysis/pictures/flame-tree.ts";
import { functionCosts, matchFunctions } from "../../src/analysis/profile-diff.ts";
import type { ProfileStacks } from "../../src/analysis/profile-stacks.ts";
import { REPO } from "../helpers.ts";

const frame = (
  fn: string,
  file: string | null,
  line: number | null = null,
  language = "javascript",
): FrameInfo => ({
  function: fn,
  language,
  module: null,
  file,
  line,
  column: null,
  symbolization: "complete",
});

const frames = new Map<string, FrameInfo>([
  ["m", frame("main", "app.js", 1)],
  ["a", frame("parse", "app.js", 10)],
  ["b", frame("render", "app.js", 20)],
  ["a2", frame("parse", "app.js", 99)], // same function, another line (pprof records sampled lines)
  ["k", frame("do_syscall_64", null, null, "native")],
]);

const stacks = [
  { frameIds: ["m", "a"], value: 60, samples: 6 },
  { frameIds: ["m", "a2"], value: 10, samples: 1 },
  { frameIds: ["m", "b"], value: 25, samples: 3 },
  { frameIds: ["m", "b", "k"], value: 4, samples: 1 },
  { frameIds: ["m"], value: 1, samples: 1 },
];

describe("flame tree", () => {
  test(
    "folds stacks by function: totals are sums of stacks through a box, self of stacks ending " +
      "there",
    () => {
      const tree = buildFlameTree(stacks, frames, { granularity: "function", rootName: "all" });
      expect(tree.root.total).toBe(100);
      const main = [...tree.root.children.values()][0]!;
      expect(main.total).toBe(100);
      expect(main.self).toBe(1);
      const byName = new Map([...main.children.values()].map((c) => [c.name.split(" ")[0], c]));
      expect(byName.get("parse")!.total).toBe(70); // both lines of parse fold into one box
      expect(byName.get("render")!.total).toBe(29);
      expect(byName.get("render")!.self).toBe(25);
      expect([...byName.get("render")!.children.values()][0]!.kind).toBe("native");
    },
  );

  test("line granularity keeps lines apart", () => {
    const tree = buildFlameTree(stacks, frames, { granularity: "line", rootName: "all" });
    const main = [...tree.root.children.values()][0]!;
    expect(main.children.size).toBe(3);
  });

  test("a filter keeps only stacks through a matching frame and counts what it left out", () => {
    const tree = buildFlameTree(stacks, frames, {
      granularity: "function",
      rootName: "all",
      filter: /render/,
    });
    expect(tree.root.total).toBe(29);
    expect(tree.filteredOutValue).toBe(71);
    expect(tree.stacks).toBe(2);
  });

  test("merging small boxes keeps every total and says how much it merged", () => {
    const wide = [
      ...stacks,
      ...Array.from({ length: 50 }, (_, i) => ({
        frameIds: ["m", `t${i}`],
        value: 0.1,
        samples: 1,
      })),
    ];
    const manyFrames = new Map(frames);
    for (let i = 0; i < 50; i++) manyFrames.set(`t${i}`, frame(`tiny${i}`, "app.js"));
    const tree = buildFlameTree(wide, manyFrames, { granularity: "function", rootName: "all" });
    const before = boxCount(tree);
    const merged = mergeSmallBoxes(tree, 1);
    expect(boxCount(merged)).toBeLessThan(before);
    expect(merged.mergedBoxes).toBe(50);
    expect(merged.mergedValue).toBeCloseTo(5, 9);
    expect(merged.root.total).toBeCloseTo(105, 6);
    const main = [...merged.root.children.values()][0]!;
    const sum = [...main.children.values()].reduce((s, c) => s + c.total, 0) + main.self;
    expect(sum).toBeCloseTo(main.total, 6);
  });

  test("differential deltas are the change in inclusive share of the total", () => {
    const base = buildFlameTree(stacks, frames, { granularity: "function", rootName: "all" });
    const slower = stacks.map((s) => (s.frameIds.includes("b") ? { ...s, value: s.value * 3 } : s));
    const cand = buildFlameTree(slower, frames, { granularity: "function", rootName: "all" });
    annotateDelta(cand, base);
    const main = [...cand.root.children.values()][0]!;
    const render = [...main.children.values()].find((c) => c.name.startsWith("render"))!;
    const parse = [...main.children.values()].find((c) => c.name.startsWith("parse"))!;
    expect(render.delta!).toBeCloseTo(87 / 158 - 29 / 100, 9);
    expect(parse.delta!).toBeCloseTo(70 / 158 - 70 / 100, 9);
    expect(main.delta!).toBeCloseTo(0, 9);
  });
});

describe("function costs and matching", () => {
  const view = (fs: Map<string, FrameInfo>, st: typeof stacks): ProfileStacks => ({
    metric: "cpu_time",
    unit: "ns",
    metricsAvailable: ["cpu_time"],
    frames: fs,
    stacks: st,
    totalValue: st.reduce((s, x) => s + x.value, 0),
    totalSamples: 0,
    generations: [],
  });

  test("recursion counts a function once per stack toward its total", () => {
    const rec = new Map([
      ["f", frame("fib", "fib.js")],
      ["g", frame("fib", "fib.js", 2)],
    ]);
    const costs = functionCosts(view(rec, [{ frameIds: ["f", "g", "f"], value: 10, samples: 1 }]));
    const fib = [...costs.values()][0]!;
    expect(costs.size).toBe(1);
    expect(fib.total).toBe(10);
    expect(fib.self).toBe(10);
  });

  test(
    "functions match by name and file, then by a name unique on both sides, else stay " +
      "unmatched",
    () => {
      const base = functionCosts(view(frames, stacks));
      const other = new Map<string, FrameInfo>([
        ["m", frame("main", "app.js")],
        ["a", frame("parse", "/abs/app.js")], // another path: matched by its unique name
        ["x", frame("newWork", "app.js")],
      ]);
      const cand = functionCosts(
        view(other, [
          { frameIds: ["m", "a"], value: 5, samples: 1 },
          { frameIds: ["m", "x"], value: 5, samples: 1 },
        ]),
      );
      const pairs = matchFunctions(base, cand);
      const kind = (name: string) =>
        pairs.find((p) => (p.candidate ?? p.base)!.function === name)!.match;
      expect(kind("main")).toBe("name_file");
      expect(kind("parse")).toBe("name_only");
      expect(kind("newWork")).toBe("unmatched");
      expect(kind("render")).toBe("unmatched");
    },
  );
});

test("the vendored d3-selection is the locked package's own UMD build", () => {
  const vendored = readFileSync(join(REPO, "src/analysis/pictures/vendor/d3-selection.min.js"));
  const locked = readFileSync(join(REPO, "node_modules/d3-selection/dist/d3-selection.min.js"));
  expect(vendored.equals(locked)).toBe(true);
});
