/**
 * Which legacy reader a payload goes to, in the order Go's profile.parseLegacy tries
 * them: binary CPU (by its header words), text heap, C++ contention, then the Java text
 * forms. A reader returns null for "not mine" and throws for "mine, but malformed".
 */
import { parseFailed } from "../json-guard.ts";
import { parseBinaryCpu } from "./binary-cpu.ts";
import { parseContentionText } from "./contention-text.ts";
import { parseHeapText } from "./heap-text.ts";
import { parseJavaText } from "./java-text.ts";
import { cpuHeaderOf } from "./legacy-headers.ts";
import { LEGACY_FORMAT, type LegacyProfile } from "./legacy-profile.ts";

export function readLegacyProfile(bytes: Uint8Array, maxSamples: number): LegacyProfile {
  const header = cpuHeaderOf(bytes);
  if (header) return parseBinaryCpu(bytes, header, maxSamples);
  const text = new TextDecoder().decode(bytes);
  const profile =
    parseHeapText(text, maxSamples) ??
    parseContentionText(text, maxSamples) ??
    parseJavaText(text, maxSamples);
  if (!profile)
    throw parseFailed(
      LEGACY_FORMAT,
      "neither a binary CPU profile nor a heap, contention or Java text profile",
    );
  return profile;
}
