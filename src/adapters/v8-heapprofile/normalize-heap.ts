/**
 * Heap profile → frames, `inuse_space` measurements (bytes still allocated when the
 * profile was written, as sampled by V8), call edges and stacks, through the same tree
 * aggregation as CPU profiles: self = the node's selfSize, inclusive = its subtree, once
 * per frame on a recursive path. Sample counts are the allocation samples per node; a
 * profile without `samples` (older Node) counts one per node that holds bytes.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { FrameRegistry } from "../common/frame-registry.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { StackTrie, deepStacksLimitation } from "../common/stack-trie.ts";
import { NsClock } from "../common/time-ns.ts";
import { SINGLE_TRACK } from "../common/track.ts";
import { expectationFailed, isPlainObject, tooLarge } from "../json-guard.ts";
import { buildNodeTree } from "../v8-sample-tree/node-tree.ts";
import { noSamples } from "../v8-sample-tree/sample-weights.ts";
import { aggregateTree } from "../v8-sample-tree/tree-aggregation.ts";
import type { AdapterLimits } from "../adapter.ts";
import { HEAP_FORMAT, type HeapProfileInput } from "./heap-input.ts";

export const HEAP_METRIC = "inuse_space";

export function heapEvidence(
  input: HeapProfileInput,
  limits: AdapterLimits,
  adapter: { name: string; version: string },
): NormalizedEvidence {
  const { nodes } = input;
  if (nodes.length > limits.maxEvents)
    throw tooLarge(HEAP_FORMAT, "nodes", nodes.length, limits.maxEvents);
  if ((input.samples?.length ?? 0) > limits.maxEvents)
    throw tooLarge(HEAP_FORMAT, "samples", input.samples!.length, limits.maxEvents);
  // Ids are optional in older profiles: id-less nodes get negative synthetic ids.
  const ids: number[] = [];
  let synthetic = -1;
  const flat = nodes.map((node, i) => {
    if ("notObject" in node)
      throw expectationFailed(HEAP_FORMAT, `node ${i}`, "an object", node.notObject);
    if (node.id !== undefined && (typeof node.id !== "number" || !Number.isInteger(node.id)))
      throw expectationFailed(HEAP_FORMAT, `node ${i} id`, "an integer", node.id);
    if (!isPlainObject(node.callFrame))
      throw expectationFailed(HEAP_FORMAT, `node ${i} callFrame`, "an object", node.callFrame);
    if (typeof node.selfSize !== "number" || !Number.isFinite(node.selfSize) || node.selfSize < 0) {
      throw expectationFailed(
        HEAP_FORMAT,
        `node ${i} selfSize`,
        "a non-negative number",
        node.selfSize,
      );
    }
    ids.push(typeof node.id === "number" ? node.id : synthetic--);
    return node;
  });
  const treeNodes = flat.map((node, i) => ({
    id: ids[i],
    callFrame: node.callFrame,
    ...(node.parent >= 0 ? { parent: ids[node.parent] } : {}),
  }));
  const frames = new FrameRegistry();
  const tree = buildNodeTree(treeNodes, frames, HEAP_FORMAT);

  const weights = noSamples(tree.size);
  let rootBytes = 0;
  for (let i = 0; i < tree.size; i++) {
    const bytes = flat[i]!.selfSize as number;
    if (tree.excluded[i] === 1) {
      rootBytes += bytes;
      continue;
    }
    weights.selfNs[i] = bytes;
    weights.totalNs += bytes;
    if (input.samples === null && bytes > 0) weights.selfCount[i] = 1;
  }
  if (input.samples !== null) {
    for (let s = 0; s < input.samples.length; s++) {
      const { nodeId } = input.samples[s]!;
      if (typeof nodeId !== "number")
        throw expectationFailed(HEAP_FORMAT, `samples[${s}].nodeId`, "a number", nodeId);
      const node = tree.indexOfId(nodeId);
      if (node < 0) {
        weights.dropped++;
        continue;
      }
      if (tree.excluded[node] === 1) weights.rootSamples++;
      else weights.selfCount[node]!++;
    }
  }
  for (let i = 0; i < tree.size; i++)
    if (weights.selfCount[i]! > 0) weights.attributed += weights.selfCount[i]!;
  const measures = new MeasureAccumulator(HEAP_METRIC, "bytes");
  const stacks = new StackTrie(HEAP_METRIC);
  if (weights.attributed > 0) aggregateTree(tree, weights, measures, stacks, 0);

  const tables = emptyTables();
  frames.emit(tables.frames);
  measures.emit(tables.frame_measurements, tables.call_edges, frames, () => SINGLE_TRACK);
  stacks.emit(tables.stacks, frames, new NsClock(0), () => SINGLE_TRACK);
  const limitations: Limitation[] = [];
  if (input.samples === null)
    limitations.push({
      code: "no_sample_records",
      message: "The profile has no `samples`: each node holding bytes counts as one sample",
    });
  if (weights.totalNs === 0)
    limitations.push({
      code: "no_samples",
      message: "The profile attributes no bytes to any frame",
    });
  if (weights.dropped > 0)
    limitations.push({
      code: "unresolved_samples",
      message: "Samples naming nodes missing from the tree; not counted",
      count: weights.dropped,
    });
  if (rootBytes > 0)
    limitations.push({
      code: "root_bytes",
      message: "Bytes on the (root) node belong to no frame and are not attributed",
      count: rootBytes,
    });
  const unsymbolized = frames.countUnsymbolized();
  if (unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Frames without a function name (anonymous)",
      count: unsymbolized,
    });
  limitations.push(...deepStacksLimitation([stacks]));
  limitations.push({
    code: "sampled_live_bytes",
    message:
      "Values are V8's sampled estimate of bytes still allocated when the profile was written",
  });
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer: null,
    producerVersion: null,
    tables,
    limitations,
    summary: {
      nodes: tree.size,
      frames: frames.size,
      samples: input.samples?.length ?? 0,
      total_bytes: weights.totalNs,
      metrics: weights.totalNs > 0 ? HEAP_METRIC : "",
    },
  };
}
