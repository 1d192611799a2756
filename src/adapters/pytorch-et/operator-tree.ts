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
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw expectationFailed(LABEL, field, "an integer", value);
  return value;
}

export function readOperatorTree(document: Record<string, unknown>, maxNodes: number): OperatorTree {
  if (!Array.isArray(document.nodes)) throw expectationFailed(LABEL, "nodes", "an array", document.nodes);
  if (document.nodes.length > maxNodes) throw tooLarge(LABEL, "nodes", document.nodes.length, maxNodes);
  const nodes: OperatorNode[] = [];
  const ids = new Set<number>();
  document.nodes.forEach((raw, i) => {
    const at = `nodes[${i}]`;
    if (!isPlainObject(raw)) throw expectationFailed(LABEL, at, "an object", raw);
    const id = integerAt(`${at}.id`, raw.id, false)!;
    if (typeof raw.name !== "string") throw expectationFailed(LABEL, `${at}.name`, "a string", raw.name);
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
 * Each node's path from its root (root first), as indices into `nodes`, computed once per
 * node. A parent chain that loops is malformed: no root can be found for it.
 */
export function rootPaths(nodes: readonly OperatorNode[]): number[][] {
  const indexOf = new Map<number, number>();
  nodes.forEach((n, i) => indexOf.set(n.id, i));
  const paths: (number[] | undefined)[] = new Array(nodes.length);
  for (let start = 0; start < nodes.length; start++) {
    if (paths[start]) continue;
    // Walk up to a node whose path is known (or a root), then fill the chain downward.
    const chain: number[] = [];
    const onChain = new Set<number>();
    let at: number | null = start;
    while (at !== null && paths[at] === undefined) {
      if (onChain.has(at)) throw parseFailed(LABEL, `expected the parents of nodes[${start}] to lead to a root but they form a cycle through node id ${nodes[at]!.id}`);
      onChain.add(at);
      chain.push(at);
      const parent: number | null = nodes[at]!.parent;
      at = parent === null ? null : indexOf.get(parent)!;
    }
    let base: number[] = at === null ? [] : paths[at]!;
    for (let k = chain.length - 1; k >= 0; k--) {
      base = [...base, chain[k]!];
      paths[chain[k]!] = base;
    }
  }
  return paths as number[][];
}
