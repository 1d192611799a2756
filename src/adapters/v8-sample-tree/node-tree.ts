/**
 * The node tree of a V8 CPU profile, flattened into typed arrays: parent, frame and a
 * preorder with depths, so aggregation can walk it without recursion (profiles can be
 * deep enough to overflow the stack). Nodes link either through `children` id lists
 * (cpuprofile files) or `parent` ids (Chrome trace ProfileChunks); both are accepted.
 */
import { expectationFailed, isPlainObject, parseFailed } from "../json-guard.ts";
import type { FrameRegistry } from "../common/frame-registry.ts";
import { internCallFrame, V8_ROOT_FUNCTION } from "./call-frame.ts";

export interface NodeTree {
  size: number;
  parent: Int32Array;
  frame: Int32Array;
  /** 1 for V8's `(root)` node, which is a container, not a frame to measure. */
  excluded: Uint8Array;
  /**
   * Reachable node indices, parents before children; `depth` is each node's depth (-1:
   * unreachable).
   */
  preorder: Int32Array;
  depth: Int32Array;
  /** Links to nodes that are not in the profile (lenient mode only; strict mode throws). */
  brokenLinks: number;
  /** Node index for a node id, or -1. */
  indexOfId(id: number): number;
}

/**
 * In lenient mode (profiles embedded in traces, where chunks can be missing) a link to
 * an unknown node is counted instead of failing: an unknown child is ignored, and a
 * node with an unknown parent is cut off together with its subtree, because its stack
 * cannot be known.
 */
export function buildNodeTree(
  nodes: readonly unknown[],
  frames: FrameRegistry,
  format: string,
  lenient = false,
): NodeTree {
  const size = nodes.length;
  const ids = new Float64Array(size);
  const frame = new Int32Array(size);
  const excluded = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const node = nodes[i];
    if (!isPlainObject(node)) throw expectationFailed(format, `nodes[${i}]`, "an object", node);
    const id = node.id;
    if (typeof id !== "number" || !Number.isInteger(id))
      throw expectationFailed(format, `nodes[${i}].id`, "an integer", id);
    const callFrame = node.callFrame;
    if (!isPlainObject(callFrame))
      throw expectationFailed(format, `nodes[${i}].callFrame`, "an object", callFrame);
    ids[i] = id;
    frame[i] = internCallFrame(frames, callFrame);
  }
  const indexOfId = idLookup(ids, format);
  const links = { broken: 0, lenient };
  const parent = linkParents(nodes, indexOfId, format, links);
  for (let i = 0; i < size; i++) {
    const name = (nodes[i] as { callFrame: { functionName?: unknown } }).callFrame.functionName;
    if (parent[i] === -1 && name === V8_ROOT_FUNCTION) excluded[i] = 1;
  }
  const { preorder, depth } = preorderOf(parent, format, lenient);
  return { size, parent, frame, excluded, preorder, depth, indexOfId, brokenLinks: links.broken };
}

/** Dense table when ids are small integers (the V8 norm), a Map otherwise. */
function idLookup(ids: Float64Array, format: string): (id: number) => number {
  let maxId = -1;
  let minId = 0;
  for (const id of ids) {
    if (id > maxId) maxId = id;
    if (id < minId) minId = id;
  }
  if (minId >= 0 && maxId < ids.length * 4 + 1024) {
    const dense = new Int32Array(maxId + 1).fill(-1);
    for (let i = 0; i < ids.length; i++) {
      if (dense[ids[i]!] !== -1)
        throw parseFailed(format, `node id ${ids[i]} appears more than once`);
      dense[ids[i]!] = i;
    }
    return (id) => (id >= 0 && id <= maxId ? dense[id]! : -1);
  }
  const sparse = new Map<number, number>();
  for (let i = 0; i < ids.length; i++) {
    if (sparse.has(ids[i]!)) throw parseFailed(format, `node id ${ids[i]} appears more than once`);
    sparse.set(ids[i]!, i);
  }
  return (id) => sparse.get(id) ?? -1;
}

/** Parent index per node: -1 for a root, CUT_OFF for a node whose parent is unknown. */
const CUT_OFF = -2;

function linkParents(
  nodes: readonly unknown[],
  indexOfId: (id: number) => number,
  format: string,
  links: { broken: number; lenient: boolean },
): Int32Array {
  const parent = new Int32Array(nodes.length).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    const children = (nodes[i] as Record<string, unknown>).children;
    if (children === undefined) continue;
    if (!Array.isArray(children))
      throw expectationFailed(format, `nodes[${i}].children`, "an array", children);
    for (let c = 0; c < children.length; c++) {
      const childId: unknown = children[c];
      const child = typeof childId === "number" ? indexOfId(childId) : -1;
      if (child < 0) {
        if (!links.lenient)
          throw parseFailed(
            format,
            `nodes[${i}].children[${c}] refers to an unknown node id ${String(childId)}`,
          );
        links.broken++;
        continue;
      }
      if (parent[child] !== -1 && parent[child] !== i)
        throw parseFailed(format, `node id ${String(childId)} has more than one parent`);
      parent[child] = i;
    }
  }
  for (let i = 0; i < nodes.length; i++) {
    const parentId = (nodes[i] as Record<string, unknown>).parent;
    if (parentId === undefined || parentId === null) continue;
    const p = typeof parentId === "number" ? indexOfId(parentId) : -1;
    if (p < 0) {
      if (!links.lenient)
        throw parseFailed(
          format,
          `nodes[${i}].parent refers to an unknown node id ${String(parentId)}`,
        );
      links.broken++;
      if (parent[i] === -1) parent[i] = CUT_OFF;
      continue;
    }
    if (parent[i] !== -1 && parent[i] !== p)
      throw parseFailed(format, `nodes[${i}] has conflicting parents`);
    parent[i] = p;
  }
  return parent;
}

/**
 * Iterative preorder from the roots; in strict mode a node unreachable from a root means a cycle.
 */
function preorderOf(
  parent: Int32Array,
  format: string,
  lenient: boolean,
): { preorder: Int32Array; depth: Int32Array } {
  const size = parent.length;
  const childCount = new Int32Array(size + 1);
  for (let i = 0; i < size; i++) if (parent[i]! >= 0) childCount[parent[i]!]!++;
  const childStart = new Int32Array(size + 1);
  for (let i = 0; i < size; i++) childStart[i + 1] = childStart[i]! + childCount[i]!;
  const childList = new Int32Array(childStart[size]!);
  const fill = childStart.slice(0, size);
  for (let i = 0; i < size; i++) if (parent[i]! >= 0) childList[fill[parent[i]!]!++] = i;

  const preorder = new Int32Array(size);
  const depth = new Int32Array(size).fill(-1);
  const pending = new Int32Array(size);
  let visited = 0;
  let top = 0;
  for (let i = size - 1; i >= 0; i--) if (parent[i] === -1) pending[top++] = i;
  while (top > 0) {
    const node = pending[--top]!;
    preorder[visited++] = node;
    const d = parent[node]! >= 0 ? depth[parent[node]!]! + 1 : 0;
    depth[node] = d;
    for (let c = childStart[node + 1]! - 1; c >= childStart[node]!; c--)
      pending[top++] = childList[c]!;
  }
  if (visited !== size && !lenient)
    throw parseFailed(
      format,
      `the node graph has a cycle (${size - visited} nodes unreachable from a root)`,
    );
  return { preorder: preorder.subarray(0, visited), depth };
}
