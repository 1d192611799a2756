/**
 * The legacy (node ≤ 10 / v8-profiler) cpuprofile form: the node tree is nested under
 * `head` instead of a flat `nodes` array, call-frame fields sit on the node itself, and
 * samples carry absolute `timestamps` instead of `timeDeltas`. This converts it to the
 * modern shape so one normalizer serves both.
 *
 * Units: legacy `startTime`/`endTime` are seconds while `timestamps` are microseconds;
 * a start time is taken as seconds when that reading lands closer to the first
 * timestamp. Line numbers are treated like the modern form's (0-based), which keeps
 * frame ids equal between the two forms of the same profile (the corpus pair agrees).
 */
import { expectationFailed, isPlainObject, parseFailed } from "../json-guard.ts";
import type { SampledProfileInput } from "../v8-sample-tree/normalize-sampled-profile.ts";

const FORMAT = "cpuprofile";

export function legacyHeadToProfile(profile: Record<string, unknown>): SampledProfileInput {
  const nodes = flattenHead(profile.head);
  const samples = profile.samples ?? [];
  if (!Array.isArray(samples)) throw expectationFailed(FORMAT, "samples", "an array", samples);
  const timestamps = profile.timestamps;
  if (timestamps !== undefined && !Array.isArray(timestamps))
    throw expectationFailed(FORMAT, "timestamps", "an array", timestamps);
  const firstTimestamp = numberAt(timestamps, 0);
  const startTimeUs = legacyTimeToUs(profile.startTime, "startTime", firstTimestamp);
  let endTimeUs: number | null = legacyTimeToUs(profile.endTime, "endTime", firstTimestamp);
  let timeDeltas: number[] | null = null;
  if (timestamps !== undefined) {
    timeDeltas = new Array<number>(Math.min(samples.length, timestamps.length));
    let previous = startTimeUs;
    for (let i = 0; i < timeDeltas.length; i++) {
      const at = timestamps[i];
      if (typeof at !== "number" || !Number.isFinite(at))
        throw expectationFailed(FORMAT, `timestamps[${i}]`, "a finite number", at);
      timeDeltas[i] = at - previous;
      previous = at;
    }
    // One timestamp more than samples: the extra one closes the last sample.
    const closing = numberAt(timestamps, samples.length);
    if (timestamps.length > samples.length && closing !== null) endTimeUs = closing;
  }
  return { nodes, samples, timeDeltas, startTimeUs, endTimeUs };
}

function numberAt(values: unknown[] | undefined, index: number): number | null {
  const value = values?.[index];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function legacyTimeToUs(value: unknown, field: string, firstTimestampUs: number | null): number {
  if (value === undefined) return firstTimestampUs ?? 0;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw expectationFailed(FORMAT, field, "a finite number", value);
  if (firstTimestampUs === null) return value * 1e6;
  return Math.abs(value * 1e6 - firstTimestampUs) < Math.abs(value - firstTimestampUs)
    ? value * 1e6
    : value;
}

/** Iterative walk (a deep legacy tree must not overflow the stack). */
function flattenHead(head: unknown): unknown[] {
  if (!isPlainObject(head)) throw expectationFailed(FORMAT, "head", "an object", head);
  const nodes: unknown[] = [];
  const pending: { node: unknown; parent: number | null; path: string }[] = [
    { node: head, parent: null, path: "head" },
  ];
  let nextSyntheticId = -1;
  while (pending.length > 0) {
    const { node, parent, path } = pending.pop()!;
    if (!isPlainObject(node)) throw expectationFailed(FORMAT, path, "an object", node);
    // Legacy ids are optional in principle; samples can only refer to nodes that have one.
    const id = typeof node.id === "number" ? node.id : nextSyntheticId--;
    nodes.push({
      id,
      parent,
      callFrame: {
        functionName: node.functionName,
        url: node.url,
        lineNumber: node.lineNumber,
        columnNumber: node.columnNumber,
      },
    });
    const children = node.children ?? [];
    if (!Array.isArray(children))
      throw expectationFailed(FORMAT, `${path}.children`, "an array", children);
    for (let c = children.length - 1; c >= 0; c--)
      pending.push({ node: children[c], parent: id, path: `${path}.children[${c}]` });
  }
  if (nodes.length === 0) throw parseFailed(FORMAT, "head has no nodes");
  return nodes;
}
