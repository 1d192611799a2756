/**
 * The merged call tree a flamegraph draws: every stack of the profile view folded into a
 * tree of boxes keyed by frame identity at the chosen granularity. Boxes narrower than
 * the picture can show are merged into one "[n small frames]" box per parent, so a
 * million-sample profile stays a few thousand boxes, and the tree says how much it merged.
 */
import type { ProfileStack } from "../profile-stacks.ts";
import type { FrameInfo } from "../hotspots.ts";
import { type FrameKind, type FrameLabel, frameLabel, type Granularity } from "./frame-identity.ts";

export interface FlameNode {
  key: string;
  name: string;
  kind: FrameKind;
  self: number;
  total: number;
  children: Map<string, FlameNode>;
  /** Differential pictures: candidate minus base inclusive share of the total, per box. */
  delta?: number;
}

export interface FlameTree {
  root: FlameNode;
  stacks: number;
  filteredOutValue: number;
  mergedBoxes: number;
  mergedValue: number;
}

export interface FlameTreeOptions {
  granularity: Granularity;
  /** Keep only stacks with a frame whose label matches (pprof's --focus). */
  filter?: RegExp;
  rootName: string;
}

const newNode = (label: Pick<FrameLabel, "key" | "name" | "kind">): FlameNode => ({
  ...label,
  self: 0,
  total: 0,
  children: new Map(),
});

export function buildFlameTree(
  stacks: readonly ProfileStack[],
  frames: ReadonlyMap<string, FrameInfo>,
  options: FlameTreeOptions,
): FlameTree {
  const root = newNode({ key: "", name: options.rootName, kind: "other" });
  const labels = new Map<string, FrameLabel>();
  const label = (id: string) => {
    let l = labels.get(id);
    if (!l) labels.set(id, (l = frameLabel(id, frames.get(id), options.granularity)));
    return l;
  };
  let filteredOutValue = 0;
  let kept = 0;
  for (const stack of stacks) {
    const path = stack.frameIds.map(label);
    if (options.filter && !path.some((l) => options.filter!.test(l.name))) {
      filteredOutValue += stack.value;
      continue;
    }
    kept += 1;
    let node = root;
    node.total += stack.value;
    for (const l of path) {
      let child = node.children.get(l.key);
      if (!child) node.children.set(l.key, (child = newNode(l)));
      child.total += stack.value;
      node = child;
    }
    node.self += stack.value;
  }
  return { root, stacks: kept, filteredOutValue, mergedBoxes: 0, mergedValue: 0 };
}

/**
 * Merges, under each parent, the children whose total is below `minValue` into one box.
 * Returns the tree with the merge counted; `minValue` is typically total / width-in-pixels.
 */
export function mergeSmallBoxes(tree: FlameTree, minValue: number): FlameTree {
  let mergedBoxes = 0;
  let mergedValue = 0;
  const visit = (node: FlameNode) => {
    const small: FlameNode[] = [];
    for (const child of node.children.values()) if (child.total < minValue) small.push(child);
    if (small.length > 1 || (small.length === 1 && small[0]!.children.size > 0)) {
      const merged = newNode({
        key: `\u0001small`,
        name: `[${small.length} small frames]`,
        kind: "other",
      });
      for (const s of small) {
        node.children.delete(s.key);
        merged.total += s.total;
        merged.self += s.total;
        if (s.delta !== undefined) merged.delta = (merged.delta ?? 0) + s.delta;
        mergedBoxes += countBoxes(s);
        mergedValue += s.total;
      }
      node.children.set(merged.key, merged);
    }
    for (const child of node.children.values()) if (child.key !== "\u0001small") visit(child);
  };
  visit(tree.root);
  return {
    ...tree,
    mergedBoxes: tree.mergedBoxes + mergedBoxes,
    mergedValue: tree.mergedValue + mergedValue,
  };
}

function countBoxes(node: FlameNode): number {
  let n = 1;
  for (const c of node.children.values()) n += countBoxes(c);
  return n;
}

/**
 * Sets each candidate box's `delta`: its inclusive share of the candidate total minus the
 * share the same path (by identity keys) had in the base, as flamegraph.pl's differential
 * graphs colour boxes. Boxes only in the base are not drawn
 * (width is the candidate's), which the caller states.
 */
export function annotateDelta(candidate: FlameTree, base: FlameTree): void {
  const candTotal = candidate.root.total || 1;
  const baseTotal = base.root.total || 1;
  const walk = (c: FlameNode, b: FlameNode | undefined) => {
    c.delta = c.total / candTotal - (b?.total ?? 0) / baseTotal;
    for (const [key, child] of c.children) walk(child, b?.children.get(key));
  };
  walk(candidate.root, base.root);
}

export function boxCount(tree: FlameTree): number {
  return countBoxes(tree.root);
}
