/**
 * Attributes samples to nodes with their durations.
 *
 * Convention (the one Chrome DevTools and speedscope use): sample i is taken at
 * t_i = startTime + timeDeltas[0] + … + timeDeltas[i] and lasts until the next sample,
 * so its duration is timeDeltas[i+1]. The last sample has no successor: it lasts until
 * endTime when endTime is known and not before it, otherwise it gets the mean duration
 * of the other samples. Durations are rounded to integer nanoseconds per sample, so
 * totals are exactly the sum of per-sample values. A negative delta (V8 occasionally
 * writes one) gives its sample a duration of 0 and is counted.
 */
import { expectationFailed, parseFailed } from "../json-guard.ts";
import { durationUsToNs, type NsClock } from "../common/time-ns.ts";
import type { NodeTree } from "./node-tree.ts";

export interface SampleTimeline {
  samples: readonly unknown[];
  /** µs; null when the producer wrote none (every sample then weighs the mean interval). */
  timeDeltas: readonly unknown[] | null;
  startTimeUs: number;
  endTimeUs: number | null;
}

export interface NodeSamples {
  selfCount: Float64Array;
  selfNs: Float64Array;
  firstRelNs: Float64Array;
  attributed: number;
  /** Samples that hit the `(root)` container and so belong to no frame. */
  rootSamples: number;
  /** Samples whose node id was unknown (only in "drop" mode). */
  dropped: number;
  clampedDeltas: number;
  missingDeltas: number;
  totalNs: number;
  lastDuration: "end_time" | "mean" | "none";
}

/** Weights of a tree of `size` nodes before any sample is attributed. */
export function noSamples(size: number): NodeSamples {
  return {
    selfCount: new Float64Array(size),
    selfNs: new Float64Array(size),
    firstRelNs: new Float64Array(size).fill(Number.POSITIVE_INFINITY),
    attributed: 0,
    rootSamples: 0,
    dropped: 0,
    clampedDeltas: 0,
    missingDeltas: 0,
    totalNs: 0,
    lastDuration: "none",
  };
}

export function attributeSamples(
  timeline: SampleTimeline,
  tree: NodeTree,
  clock: NsClock,
  format: string,
  unknownSamples: "fail" | "drop",
): NodeSamples {
  const { samples } = timeline;
  const n = samples.length;
  const result = noSamples(tree.size);
  if (n === 0) return result;
  const deltaNs = deltasInNs(timeline, n, format, result);
  let at = clock.relNs(timeline.startTimeUs);
  let sumNs = 0;
  for (let i = 0; i < n; i++) {
    at += deltaNs[i]!;
    const id = samples[i];
    if (typeof id !== "number") throw expectationFailed(format, `samples[${i}]`, "a number", id);
    let node = tree.indexOfId(id);
    if (node >= 0 && tree.depth[node]! < 0) node = -1; // cut off from the tree (lenient mode)
    let duration: number;
    if (i + 1 < n) {
      duration = Math.max(deltaNs[i + 1]!, 0);
      sumNs += duration;
    } else {
      duration = lastSampleNs(timeline, clock, at, sumNs, n, result);
    }
    if (node < 0) {
      if (unknownSamples === "fail")
        throw parseFailed(format, `samples[${i}] refers to an unknown node id ${id}`);
      result.dropped++;
      continue;
    }
    if (tree.excluded[node] === 1) {
      result.rootSamples++;
      continue;
    }
    result.selfCount[node]!++;
    result.selfNs[node]! += duration;
    if (at < result.firstRelNs[node]!) result.firstRelNs[node] = at;
    result.attributed++;
    result.totalNs += duration;
  }
  return result;
}

/** Validated deltas in ns; negative ones keep moving the clock but are counted. */
function deltasInNs(
  timeline: SampleTimeline,
  n: number,
  format: string,
  result: NodeSamples,
): Float64Array {
  const deltaNs = new Float64Array(n);
  const deltas = timeline.timeDeltas;
  if (deltas === null) {
    const span = timeline.endTimeUs === null ? 0 : timeline.endTimeUs - timeline.startTimeUs;
    const each = span > 0 ? durationUsToNs(span / n) : 0;
    deltaNs.fill(each);
    result.missingDeltas = n;
    return deltaNs;
  }
  const available = Math.min(n, deltas.length);
  for (let i = 0; i < available; i++) {
    const delta = deltas[i];
    if (typeof delta !== "number" || !Number.isFinite(delta))
      throw expectationFailed(format, `timeDeltas[${i}]`, "a finite number", delta);
    const ns = durationUsToNs(delta);
    if (ns < 0 && i > 0) result.clampedDeltas++;
    deltaNs[i] = ns;
  }
  result.missingDeltas = n - available;
  return deltaNs;
}

function lastSampleNs(
  timeline: SampleTimeline,
  clock: NsClock,
  at: number,
  sumNs: number,
  n: number,
  result: NodeSamples,
): number {
  if (timeline.endTimeUs !== null && Number.isFinite(timeline.endTimeUs)) {
    const untilEnd = clock.relNs(timeline.endTimeUs) - at;
    if (untilEnd >= 0) {
      result.lastDuration = "end_time";
      return untilEnd;
    }
  }
  if (n > 1) {
    result.lastDuration = "mean";
    return Math.round(sumNs / (n - 1));
  }
  return 0;
}
