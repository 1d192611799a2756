/**
 * Reference: payload → validated SampledProfileInput through JSON.parse (modern `nodes`
 * form or legacy `head` form). Only the top-level shape is checked here; per-node and per-sample
 * checks happen in
 * the shared normalizer's single pass over them.
 */
import type { AdapterLimits } from "../../../src/adapters/adapter.ts";
import {
  expectationFailed,
  isPlainObject,
  parseJsonPayload,
  tooLarge,
} from "../../../src/adapters/json-guard.ts";
import type { SampledProfileInput } from "../../../src/adapters/v8-sample-tree/normalize-sampled-profile.ts";
import { legacyHeadToProfile } from "../../../src/adapters/v8-cpuprofile/legacy-head.ts";
import type { ParsedCpuProfile } from "../../../src/adapters/v8-cpuprofile/scan-profile.ts";

const FORMAT = "cpuprofile";

export function parseCpuProfile(bytes: Uint8Array, limits: AdapterLimits): ParsedCpuProfile {
  const { value } = parseJsonPayload(bytes, limits.maxNestingDepth, FORMAT);
  if (!isPlainObject(value))
    throw expectationFailed(FORMAT, "the top-level value", "an object", value);
  const legacyHead = value.nodes === undefined && value.head !== undefined;
  const profile = legacyHead ? legacyHeadToProfile(value) : modernProfile(value);
  if (profile.samples.length > limits.maxEvents)
    throw tooLarge(FORMAT, "samples", profile.samples.length, limits.maxEvents);
  if (profile.nodes.length > limits.maxEvents)
    throw tooLarge(FORMAT, "nodes", profile.nodes.length, limits.maxEvents);
  return { profile, legacyHead };
}

function modernProfile(value: Record<string, unknown>): SampledProfileInput {
  const { nodes, startTime, endTime } = value;
  const samples = value.samples ?? [];
  const timeDeltas = value.timeDeltas;
  if (!Array.isArray(nodes)) throw expectationFailed(FORMAT, "nodes", "an array", nodes);
  if (!Array.isArray(samples)) throw expectationFailed(FORMAT, "samples", "an array", samples);
  if (timeDeltas !== undefined && !Array.isArray(timeDeltas))
    throw expectationFailed(FORMAT, "timeDeltas", "an array", timeDeltas);
  if (startTime !== undefined && (typeof startTime !== "number" || !Number.isFinite(startTime))) {
    throw expectationFailed(FORMAT, "startTime", "a finite number", startTime);
  }
  if (endTime !== undefined && (typeof endTime !== "number" || !Number.isFinite(endTime))) {
    throw expectationFailed(FORMAT, "endTime", "a finite number", endTime);
  }
  return {
    nodes,
    samples,
    timeDeltas: timeDeltas ?? null,
    startTimeUs: startTime ?? 0,
    endTimeUs: endTime ?? null,
  };
}
