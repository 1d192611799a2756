/**
 * A massif snapshot's allocation tree → `inuse_space` stacks. The tree is rooted at the
 * allocation functions and each child is a caller of its parent, so a path read backwards
 * (without the root) is a call stack, outermost caller first. A node holds the bytes
 * allocated below it; what its children do not account for was allocated with that node
 * as the outermost frame massif kept. A "below massif's threshold" node stands for callers
 * too small to list: its bytes go to the stack of its parent under a
 * `(below massif's threshold)` root frame, so totals stay exact and the gap is visible.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { valgrindFrame } from "../common/valgrind-frame.ts";
import type { MassifSnapshot } from "./massif-reader.ts";

const BELOW = /^in \d+ places?,.*below massif's threshold/;
const BELOW_FRAME = "(below massif's threshold)";

export interface MassifCounts {
  belowThresholdBytes: number;
  unattributedBytes: number;
}

export function addMassifTree(snapshot: MassifSnapshot, out: SampledStacks): MassifCounts {
  const measures = out.metric("inuse_space", "bytes");
  const counts: MassifCounts = { belowThresholdBytes: 0, unattributedBytes: 0 };
  const tree = snapshot.tree;
  // The frames of the current path (index 0 is the root pseudo-node, left null).
  const path: (number | null)[] = [];
  const below = () =>
    out.frames.intern(JSON.stringify(["massif", BELOW_FRAME]), {
      language: "native",
      function: BELOW_FRAME,
      module: null,
      file: null,
      line: null,
      column: null,
      symbolization: "absent",
    });
  const stackOf = (depth: number, extra: number | null): number[] => {
    const stack: number[] = extra === null ? [] : [extra];
    for (let d = depth; d >= 1; d--) stack.push(path[d]!);
    return stack;
  };
  for (let i = 0; i < tree.length; i++) {
    const node = tree[i]!;
    let childBytes = 0;
    for (let j = i + 1; j < tree.length && tree[j]!.depth > node.depth; j++)
      if (tree[j]!.depth === node.depth + 1) childBytes += tree[j]!.bytes;
    const isBelow = BELOW.test(node.location);
    path.length = node.depth + 1;
    if (node.depth === 0) {
      path[0] = null;
      if (node.bytes > childBytes) counts.unattributedBytes += node.bytes - childBytes;
      continue;
    }
    if (isBelow) {
      counts.belowThresholdBytes += node.bytes;
      const stack = stackOf(node.depth - 1, below());
      if (node.bytes > 0) measures.add(stack, 0, 1, node.bytes);
      continue;
    }
    const frame = valgrindFrame(node.location);
    path[node.depth] = out.frames.intern(frame.key, frame.record);
    const self = node.bytes - childBytes;
    if (self > 0) measures.add(stackOf(node.depth, null), 0, 1, self);
  }
  return counts;
}

export function massifLimitations(
  counts: MassifCounts,
  snapshots: number,
  hadPeak: boolean,
  chosen: MassifSnapshot | null,
  unsymbolized: number,
): Limitation[] {
  const out: Limitation[] = [];
  if (chosen === null)
    out.push({ code: "no_samples", message: "No snapshot has an allocation tree (all are empty)" });
  else {
    out.push({
      code: "single_snapshot",
      message:
        `Only ${hadPeak ? "the peak" : "the largest detailed"} snapshot's tree ` +
        `(snapshot ${chosen.index} of ${snapshots}) is imported, as inuse_space; the heap over ` +
        `time is in the summary only`,
    });
    if (counts.belowThresholdBytes > 0)
      out.push({
        code: "below_threshold",
        message:
          "Bytes massif aggregated as below its threshold, under a (below massif's " +
          "threshold) root frame",
        count: counts.belowThresholdBytes,
      });
    if (counts.unattributedBytes > 0)
      out.push({
        code: "unattributed_bytes",
        message: "Bytes of the tree's root its children do not account for",
        count: counts.unattributedBytes,
      });
  }
  if (unsymbolized > 0)
    out.push({
      code: "missing_symbols",
      message: "Frames Valgrind could not name (???) or aggregated below threshold",
      count: unsymbolized,
    });
  return out;
}
