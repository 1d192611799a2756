/**
 * One V8 sampled profile (a `.cpuprofile`, or one reassembled from a Chrome trace's
 * Profile/ProfileChunk events) → `cpu_time` measurements, call edges and stacks. Both
 * the v8-cpuprofile and the chrome-trace adapters go through here, so the two agree on
 * every number for the same samples.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";
import type { MeasureAccumulator } from "../common/measure-accumulator.ts";
import type { StackTrie } from "../common/stack-trie.ts";
import type { NsClock } from "../common/time-ns.ts";
import { buildNodeTree } from "./node-tree.ts";
import { attributeSamples, type NodeSamples, type SampleTimeline } from "./sample-weights.ts";
import { aggregateTree } from "./tree-aggregation.ts";

export interface SampledProfileInput extends SampleTimeline {
  nodes: readonly unknown[];
}

export interface SampledProfileTargets {
  frames: FrameRegistry;
  cpu: MeasureAccumulator;
  stacks: StackTrie;
  clock: NsClock;
  /** Track index the samples belong to (resolved to names by the adapter). */
  track: number;
}

export interface SampledProfileStats {
  nodes: number;
  /** Links to nodes missing from the profile (lenient mode). */
  brokenLinks: number;
  samples: number;
  attributedSamples: number;
  rootSamples: number;
  droppedSamples: number;
  clampedDeltas: number;
  missingDeltas: number;
  totalNs: number;
  lastSampleDuration: NodeSamples["lastDuration"];
}

export function normalizeSampledProfile(
  input: SampledProfileInput,
  targets: SampledProfileTargets,
  /** "drop": samples and links to unknown nodes are counted and skipped instead of failing. */
  options: { format: string; unknownSamples: "fail" | "drop" },
): SampledProfileStats {
  const lenient = options.unknownSamples === "drop";
  const tree = buildNodeTree(input.nodes, targets.frames, options.format, lenient);
  const samples = attributeSamples(
    input,
    tree,
    targets.clock,
    options.format,
    options.unknownSamples,
  );
  if (samples.attributed > 0)
    aggregateTree(tree, samples, targets.cpu, targets.stacks, targets.track);
  return {
    nodes: tree.size,
    brokenLinks: tree.brokenLinks,
    samples: input.samples.length,
    attributedSamples: samples.attributed,
    rootSamples: samples.rootSamples,
    droppedSamples: samples.dropped,
    clampedDeltas: samples.clampedDeltas,
    missingDeltas: samples.missingDeltas,
    totalNs: samples.totalNs,
    lastSampleDuration: samples.lastDuration,
  };
}
