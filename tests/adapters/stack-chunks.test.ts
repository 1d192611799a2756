/**
 * writeStackChunks (src/adapters/common/stack-chunks.ts) writes each row's key and frame ids
 * again only from where its path leaves the previous row's. Whatever the order of the rows
 * (parents before children, siblings, jumps back to the root), the depth of the paths (past
 * the writer's first buffers) or the metric (tries of different metrics one after another,
 * whose key prefixes differ in length), every row must carry the ids and frames computed
 * here from scratch: stack_id is the SHA-256 of its metric and full path.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { writeStackChunks } from "../../src/adapters/common/stack-chunks.ts";
import { ROOT_STACK, StackTrie } from "../../src/adapters/common/stack-trie.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";
import type { FrameMetric } from "../../src/domain/evidence-schema.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { numberedFrames } from "./numbered-frames.ts";
import { streamedRows } from "./stream-harness.ts";

const FRAMES = 40;
const frames = numberedFrames(FRAMES);
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** A trie of `metric` holding `paths` (one sample each), in that order. */
function trieOf(metric: FrameMetric, paths: readonly number[][]): StackTrie {
  const trie = new StackTrie(metric);
  for (const path of paths) {
    let stack = ROOT_STACK;
    for (const f of path) stack = trie.child(stack, f);
    trie.add(stack, 1, 10, 0, 0);
  }
  return trie;
}

async function written(tries: StackTrie[], rowsPerBatch: number) {
  const batches: ColumnBatch[] = [];
  await writeStackChunks(
    { writeBatch: async (b) => void batches.push(b) },
    tries,
    frames,
    new NsClock(0),
    () => ({ id: "t" }) as never,
    rowsPerBatch,
  );
  return streamedRows(batches, "stacks").map((r) => ({
    stack_id: r.stack_id,
    metric: r.metric,
    frame_ids: r.frame_ids,
    leaf_frame_id: r.leaf_frame_id,
  }));
}

function expected(metric: FrameMetric, paths: readonly number[][]) {
  const seen = new Set<string>();
  return paths
    .filter((p) => !seen.has(p.join()) && seen.add(p.join()))
    .map((path) => {
      const ids = path.map((f) => frames.ids[f]!);
      return {
        stack_id: "st_" + sha(`${metric}\u0000${ids.join("\u0001")}`).slice(0, 20),
        metric,
        frame_ids: ids,
        leaf_frame_id: ids[ids.length - 1]!,
      };
    });
}

/** Random paths as a depth-first walk hands them out: a child's path extends its parent's. */
function walk(seed: number, n: number, maxDepth: number): number[][] {
  const random = mulberry32(seed);
  const paths: number[][] = [];
  let path: number[] = [];
  while (paths.length < n) {
    const r = random();
    if (path.length > 0 && (r < 0.04 || path.length >= maxDepth))
      path = path.slice(0, Math.floor(random() * path.length)); // back up (to the root, at times)
    path = [...path, Math.floor(random() * FRAMES)];
    paths.push(path);
  }
  return paths;
}

describe("stack rows written from their predecessor's prefix", () => {
  for (const seed of [1, 2, 3]) {
    test(`depth-first paths up to 150 deep, seed ${seed}: ids and frames as from scratch`, async () => {
      const paths = walk(seed, 4000, 150);
      expect(Math.max(...paths.map((p) => p.length))).toBeGreaterThan(64);
      for (const rows of [7, 1000]) {
        expect(await written([trieOf("wall_time", paths)], rows)).toEqual(
          expected("wall_time", paths),
        );
      }
    });
  }

  test("random paths in random order", async () => {
    const random = mulberry32(9);
    const paths = Array.from({ length: 3000 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 8) }, () => Math.floor(random() * 4)),
    );
    const byId = <T extends { stack_id: unknown }>(rows: T[]) =>
      rows.sort((a, b) => String(a.stack_id).localeCompare(String(b.stack_id)));
    expect(byId(await written([trieOf("cpu_time", paths)], 64))).toEqual(
      byId(expected("cpu_time", paths)),
    );
  });

  test("a metric of another length after the last row shares its frames", async () => {
    const first = [[1], [1, 2], [1, 2, 3]];
    const second = [
      [1, 2, 3, 4],
      [1, 2, 5],
    ];
    for (const [a, b] of [
      ["wall_time", "cpu_time"],
      ["cpu_time", "wall_time"],
    ] as [FrameMetric, FrameMetric][]) {
      expect(await written([trieOf(a, first), trieOf(b, second)], 2)).toEqual([
        ...expected(a, first),
        ...expected(b, second),
      ]);
    }
  });
});
