/** What the `gecko` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectGecko({ head }: DetectInput): number {
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

export const geckoDescription: AdapterDescription = {
  name: "gecko",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks", "trace_events", "tracks"],
  artifactKind: "sample_profile",
  mediaType: "application/json",
  detect: detectGecko,
};
