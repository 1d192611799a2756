/**
 * Turns per-node sample totals into frame measurements, call edges and stacks.
 *
 * Inclusive values count a sample once per frame even when the frame recurses: a node
 * contributes its subtree only when its frame is not already on the path above it (the
 * outermost occurrence). Call edges follow the same rule per (parent frame, child frame)
 * pair. The walk is a preorder with an explicit path, so exits are the pops.
 */
import type { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { ROOT_STACK, type StackTrie } from "../common/stack-trie.ts";
import type { NodeTree } from "./node-tree.ts";
import type { NodeSamples } from "./sample-weights.ts";

/** Packs a (parent frame, child frame) pair into one safe-integer key for path counting. */
const EDGE_KEY_STRIDE = 2 ** 26;

export function aggregateTree(
  tree: NodeTree,
  samples: NodeSamples,
  cpu: MeasureAccumulator,
  stacks: StackTrie,
  track: number,
): void {
  const { size, parent, frame, excluded, preorder, depth } = tree;
  const reachable = preorder.length;
  const subtreeCount = Float64Array.from(samples.selfCount);
  const subtreeNs = Float64Array.from(samples.selfNs);
  for (let k = reachable - 1; k >= 0; k--) {
    const node = preorder[k]!;
    const p = parent[node]!;
    if (p >= 0) {
      subtreeCount[p]! += subtreeCount[node]!;
      subtreeNs[p]! += subtreeNs[node]!;
    }
  }

  const totals = cpu.track(track);
  const framesOnPath = new Map<number, number>();
  const edgesOnPath = new Map<number, number>();
  const pathNode = new Int32Array(size);
  const pathEdge = new Float64Array(size).fill(-1);
  const stackOf = new Int32Array(size).fill(ROOT_STACK);
  let pathLength = 0;

  for (let k = 0; k < reachable; k++) {
    const node = preorder[k]!;
    if (subtreeCount[node] === 0) continue; // nothing sampled below: skip the whole subtree's work
    while (pathLength > depth[node]!) {
      pathLength--;
      const left = pathNode[pathLength]!;
      if (excluded[left] === 1) continue;
      decrement(framesOnPath, frame[left]!);
      if (pathEdge[pathLength]! >= 0) decrement(edgesOnPath, pathEdge[pathLength]!);
    }
    pathNode[pathLength] = node;
    pathEdge[pathLength] = -1;
    pathLength++;
    if (excluded[node] === 1) continue;

    const f = frame[node]!;
    const count = subtreeCount[node]!;
    const ns = subtreeNs[node]!;
    if (samples.selfCount[node]! > 0)
      cpu.addSelf(totals, f, samples.selfCount[node]!, samples.selfNs[node]!);
    if (increment(framesOnPath, f) === 1) cpu.addInclusive(totals, f, count, ns);

    const p = parent[node]!;
    const parentIsFrame = p >= 0 && excluded[p] === 0;
    if (parentIsFrame) {
      const edge = frame[p]! * EDGE_KEY_STRIDE + f;
      pathEdge[pathLength - 1] = edge;
      if (increment(edgesOnPath, edge) === 1) cpu.addEdge(frame[p]!, f, count, ns);
    }

    const stack = stacks.child(parentIsFrame ? stackOf[p]! : ROOT_STACK, f);
    stackOf[node] = stack;
    if (samples.selfCount[node]! > 0)
      stacks.add(
        stack,
        samples.selfCount[node]!,
        samples.selfNs[node]!,
        samples.firstRelNs[node]!,
        track,
      );
  }
}

function increment(counts: Map<number, number>, key: number): number {
  const next = (counts.get(key) ?? 0) + 1;
  counts.set(key, next);
  return next;
}

function decrement(counts: Map<number, number>, key: number): void {
  const next = (counts.get(key) ?? 1) - 1;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
