/** What the `pprof` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";
import { fieldsWithin, sniffFirstMessage, topLevelFields } from "../wasm/proto-sniff.ts";

/** Profile's top-level fields and their wire types (13, comment, may be packed). */
const PROFILE_FIELDS: Record<number, number> = {
  1: 2,
  2: 2,
  3: 2,
  4: 2,
  5: 2,
  6: 2,
  7: 0,
  8: 0,
  9: 0,
  10: 0,
  11: 2,
  12: 0,
  13: 0,
  14: 0,
  15: 2,
};

function detectPprof({ headBytes, displayName }: DetectInput): number {
  if (!headBytes || headBytes.length < 4) return 0;
  const fields = topLevelFields(headBytes, 12);
  if (
    fields.length === 0 ||
    !fields.every((f) => PROFILE_FIELDS[f.number] === f.wire || (f.number === 13 && f.wire === 2))
  )
    return 0;
  const named =
    /\.(pprof|prof|pb)(\.gz)?$/i.test(displayName) || /pprof|profile/i.test(displayName);
  if (fields.some((f) => f.number !== 1)) return named ? 0.9 : 0.8;
  // Only field 1 seen: a ValueType (two varints) tells pprof from a Perfetto or OTLP stream.
  const first = sniffFirstMessage(headBytes);
  return first && fieldsWithin(first.inner, { 1: 0, 2: 0 }) ? 0.8 : 0;
}

export const pprofDescription: AdapterDescription = {
  name: "pprof",
  version: "1.2.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "application/vnd.google.protobuf",
  detect: detectPprof,
};
