/**
 * The `gecko` adapter: Firefox Profiler files, both Gecko's raw profile (`meta.version`
 * 3 and later, as Firefox writes it, also inside Firefox's old devtools export) and the
 * profiler's processed format (`meta.preprocessedProfileVersion`, also samply's output):
 * threads, samples with their weights, frame/func/resource tables and markers. The file
 * is parsed whole (guarded JSON), the worker having capped its size.
 */
import type { DetectInput, ExtractInput, ProducerAdapter } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { parseJsonPayload } from "../json-guard.ts";
import { geckoEvidence } from "./gecko-evidence.ts";
import { GECKO_FORMAT, readGeckoProfile } from "./gecko-profile.ts";

const SELF = { name: "gecko", version: "1.0.0" };

export function detectGecko({ head }: DetectInput): number {
  if (!/^\s*\{/.test(head)) return 0;
  const meta = /"meta"\s*:\s*\{/.test(head);
  if (meta && /"preprocessedProfileVersion"\s*:\s*\d/.test(head)) return 0.95;
  // Raw Gecko: meta with a version and the profiler's own fields, or tables with a schema.
  if (
    meta &&
    /"version"\s*:\s*\d/.test(head) &&
    /"(stackwalk|processType|interval)"\s*:/.test(head) &&
    /"(threads|libs)"\s*:/.test(head)
  )
    return 0.9;
  // Firefox's devtools export: a `profile` holding the Gecko profile.
  if (/"profile"\s*:\s*\{\s*"(libs|meta|threads)"/.test(head) && /"stackTable"|"libs"/.test(head))
    return 0.85;
  return 0;
}

export const geckoAdapter: ProducerAdapter = {
  ...SELF,
  tables: ["frames", "frame_measurements", "call_edges", "stacks", "trace_events", "tracks"],
  artifactKind: "sample_profile",
  mediaType: "application/json",
  detect: detectGecko,
  extract(input: ExtractInput): NormalizedEvidence {
    const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, GECKO_FORMAT);
    return geckoEvidence(readGeckoProfile(value), input.limits.maxEvents, SELF);
  },
};
