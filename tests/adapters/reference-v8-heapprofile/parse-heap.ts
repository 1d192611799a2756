/**
 * Reference, through JSON.parse: payload → HeapProfileInput, walking the nested `head`
 * tree iteratively in post-order (a deep tree must not overflow the stack).
 */
import type { AdapterLimits } from "../../../src/adapters/adapter.ts";
import {
  expectationFailed,
  isPlainObject,
  parseJsonPayload,
} from "../../../src/adapters/json-guard.ts";
import {
  HEAP_FORMAT,
  type HeapNodeInput,
  type HeapProfileInput,
  type HeapSampleInput,
} from "../../../src/adapters/v8-heapprofile/heap-input.ts";

export function parseHeapProfile(bytes: Uint8Array, limits: AdapterLimits): HeapProfileInput {
  const { value } = parseJsonPayload(bytes, limits.maxNestingDepth, HEAP_FORMAT);
  if (!isPlainObject(value))
    throw expectationFailed(HEAP_FORMAT, "the top-level value", "an object", value);
  if (!isPlainObject(value.head))
    throw expectationFailed(HEAP_FORMAT, "head", "an object", value.head);
  const samples = value.samples;
  if (samples !== undefined && !Array.isArray(samples))
    throw expectationFailed(HEAP_FORMAT, "samples", "an array", samples);
  return {
    nodes: postOrder(value.head),
    samples:
      samples === undefined
        ? null
        : samples.map(
            (s): HeapSampleInput =>
              isPlainObject(s)
                ? { nodeId: s.nodeId, size: s.size }
                : { nodeId: undefined, size: undefined },
          ),
  };
}

function postOrder(head: unknown): HeapNodeInput[] {
  const out: HeapNodeInput[] = [];
  // Each entry: the node, its children (once expanded), next child to visit, and the
  // entries of finished children waiting for their parent's position.
  const stack: { node: unknown; next: number; waiting: number[] }[] = [
    { node: head, next: 0, waiting: [] },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const raw = isPlainObject(top.node) ? top.node.children : undefined;
    if (raw !== undefined && !Array.isArray(raw))
      throw expectationFailed(HEAP_FORMAT, "children", "an array", raw);
    const children: unknown[] = raw ?? [];
    if (top.next < children.length) {
      stack.push({ node: children[top.next++], next: 0, waiting: [] });
      continue;
    }
    stack.pop();
    const node = top.node;
    const at = out.length;
    out.push(
      isPlainObject(node)
        ? { id: node.id, callFrame: node.callFrame, selfSize: node.selfSize, parent: -1 }
        : { id: undefined, callFrame: undefined, selfSize: undefined, parent: -1, notObject: node },
    );
    for (const child of top.waiting) out[child]!.parent = at;
    stack[stack.length - 1]?.waiting.push(at);
  }
  return out;
}
