/**
 * A V8 sampling heap profile (`node --heap-prof`, DevTools) as its nodes in post-order
 * (children before their parent, each with its parent's position) and its sample records.
 * Both parse paths (JSON.parse and the WASM stream) build this, so they normalize alike.
 */
export interface HeapNodeInput {
  /** The node's own fields as JSON.parse would give them (undefined when absent). */
  id: unknown;
  callFrame: unknown;
  selfSize: unknown;
  /** Position of the parent in `nodes`, -1 for the head. */
  parent: number;
  /** The value itself when it is not an object (reported as a shape error). */
  notObject?: unknown;
}

export interface HeapSampleInput {
  nodeId: unknown;
  size: unknown;
}

export interface HeapProfileInput {
  nodes: HeapNodeInput[];
  /** null when the profile has no `samples` array (older Node versions). */
  samples: HeapSampleInput[] | null;
}

export const HEAP_FORMAT = "heapprofile";
