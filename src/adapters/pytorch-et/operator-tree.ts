/**
 * The operator tree of a PyTorch execution trace: every node with its parent, read from
 * either node shape the ExecutionTraceObserver has written (schema 1.0.x: `parent`,
 * `tid`, `scope` as fields; later schemas: `ctrl_deps` and an `attrs` list of
 * `{name, type, value}`). A node whose parent is itself is a root; a node whose parent
 * is not in the trace is kept as a root and counted, never dropped.
 */
import { expectationFailed, isPlainObject, parseFailed, tooLarge } from "../json-guard.ts";

export const LABEL = "PyTorch execution trace";

export interface OperatorNode {
  id: number;
  name: string;
  /** The parent's id; null for a root. */
  parent: number | null;
  tid: number | null;
  /** RecordFunction scope (7 is USER_SCOPE: record_function annotations). */
  scope: number | null;
}

export interface OperatorTree {
  nodes: OperatorNode[];
  /** Nodes whose parent id names no node of the trace (read as roots). */
  orphans: number;
}

function attribute(node: Record<string, unknown>, name: string): unknown {
  if (node[name] !== undefined) return node[name];
  if (!Array.isArray(node.attrs)) return undefined;
  const attr = node.attrs.find((a) => isPlainObject(a) && a.name === name);
  return isPlainObject(attr) ? attr.value : undefined;
}

function integerAt(field: string, value: unknown, optional: boolean): number | null {
  if (value === undefined || value === null) {
    if (optional) return null;
    throw expectationFailed(LABEL, field, "an integer", value);
  }
  if (typeof value !== "number" || !Number.isSafeInteger(value))
    throw expectationFailed(LABEL, field, "an integer", value);
  return value;
}

export function readOperatorTree(
  document: Record<string, unknown>,
  maxNodes: number,
): OperatorTree {
  if (!Array.isArray(document.nodes))
    throw expectationFailed(LABEL, "nodes", "an array", document.nodes);
  if (document.nodes.length > maxNodes)
    throw tooLarge(LABEL, "nodes", document.nodes.length, maxNodes);
  const nodes: OperatorNode[] = [];
  const ids = new Set<number>();
  document.nodes.forEach((raw, i) => {
    const at = `nodes[${i}]`;
    if (!isPlainObject(raw)) throw expectationFailed(LABEL, at, "an object", raw);
    const id = integerAt(`${at}.id`, raw.id, false)!;
    if (typeof raw.name !== "string")
      throw expectationFailed(LABEL, `${at}.name`, "a string", raw.name);
    if (ids.has(id)) throw expectationFailed(LABEL, `${at}.id`, "an id no other node has", id);
    ids.add(id);
    const parentField = raw.parent !== undefined ? "parent" : "ctrl_deps";
    const parent = integerAt(`${at}.${parentField}`, raw.parent ?? raw.ctrl_deps, false)!;
    nodes.push({
      id,
      name: raw.name,
      parent: parent === id ? null : parent,
      tid: integerAt(`${at}.tid`, attribute(raw, "tid"), true),
      scope: integerAt(`${at}.scope`, attribute(raw, "scope"), true),
    });
  });
  let orphans = 0;
  for (const node of nodes) {
    if (node.parent !== null && !ids.has(node.parent)) {
      node.parent = null;
      orphans++;
    }
  }
  return { nodes, orphans };
}

/**
 * Deeper parent chains are refused: no real operator nesting comes near it, and a chain's cost
 * grows with its depth.
 */
export const MAX_OPERATOR_DEPTH = 1024;

export interface CallStack {
  /** Frames from the root down to the operator. */
  frames: number[];
  track: number;
  /** Nodes (calls) with exactly this path on this track. */
  calls: number;
}

/**
 * The distinct root-to-node paths of the tree (by frame, per track), each with its number
 * of calls. Nodes are interned into a trie of frame paths as they are reached, so a node
 * costs one map lookup however deep it is, and a path is spelled out once however many
 * calls share it (a training loop repeats the same operators thousands of times). A
 * parent chain that loops is malformed: no root can be found for it.
 */
export function callStacks(
  nodes: readonly OperatorNode[],
  frameOf: readonly number[],
  trackOf: readonly number[],
): { stacks: CallStack[]; roots: number; maxDepth: number } {
  const indexOf = new Map<number, number>();
  nodes.forEach((n, i) => indexOf.set(n.id, i));
  // Trie of frame paths: entry t has a parent entry (-1 at a root), a frame and a depth.
  const trieParent: number[] = [];
  const trieFrame: number[] = [];
  const trieDepth: number[] = [];
  const trieChild = new Map<string, number>();
  const entryOf = new Int32Array(nodes.length).fill(-1);
  const child = (parent: number, frame: number): number => {
    const key = `${parent}:${frame}`;
    let t = trieChild.get(key);
    if (t === undefined) {
      t = trieParent.length;
      const depth = parent < 0 ? 1 : trieDepth[parent]! + 1;
      if (depth > MAX_OPERATOR_DEPTH)
        throw tooLarge(LABEL, "levels of operator nesting", depth, MAX_OPERATOR_DEPTH);
      trieParent.push(parent);
      trieFrame.push(frame);
      trieDepth.push(depth);
      trieChild.set(key, t);
    }
    return t;
  };
  let roots = 0;
  for (let start = 0; start < nodes.length; start++) {
    if (entryOf[start]! >= 0) continue;
    // Walk up to a node already placed (or a root), then place the chain downward.
    const chain: number[] = [];
    const onChain = new Set<number>();
    let at: number | null = start;
    while (at !== null && entryOf[at]! < 0) {
      if (onChain.has(at))
        throw parseFailed(
          LABEL,
          `expected the parents of nodes[${start}] to lead to a root but they form a cycle ` +
            `through node id ${nodes[at]!.id}`,
        );
      if (chain.length >= MAX_OPERATOR_DEPTH)
        throw tooLarge(LABEL, "levels of operator nesting", chain.length + 1, MAX_OPERATOR_DEPTH);
      onChain.add(at);
      chain.push(at);
      const parent: number | null = nodes[at]!.parent;
      at = parent === null ? null : indexOf.get(parent)!;
    }
    let entry = at === null ? -1 : entryOf[at]!;
    for (let k = chain.length - 1; k >= 0; k--) {
      const node = chain[k]!;
      if (entry < 0) roots++;
      entry = child(entry, frameOf[node]!);
      entryOf[node] = entry;
    }
  }
  const calls = new Map<string, CallStack & { entry: number }>();
  for (let i = 0; i < nodes.length; i++) {
    const key = `${entryOf[i]}:${trackOf[i]}`;
    const known = calls.get(key);
    if (known) known.calls++;
    else calls.set(key, { entry: entryOf[i]!, track: trackOf[i]!, calls: 1, frames: [] });
  }
  let maxDepth = 0;
  const stacks = [...calls.values()].map(({ entry, track, calls: n }) => {
    const frames: number[] = [];
    for (let t = entry; t >= 0; t = trieParent[t]!) frames.push(trieFrame[t]!);
    maxDepth = Math.max(maxDepth, frames.length);
    return { frames: frames.reverse(), track, calls: n };
  });
  return { stacks, roots, maxDepth };
}
