/**
 * C++ contentionz text profiles, after legacy_profile.go parseContention /
 * parseContentionSample:
 *
 *   --- contentionz 1 ---          (or "--- contention ---")
 *   cycles/second = 3201000000
 *   sampling period = 100
 *   ms since reset = 16502830
 *   <delay cycles> <count> @ 0x<leaf> 0x<caller> …
 *   --- Memory map: ---
 *
 * Only every `sampling period`-th contention was recorded, so counts and delays are
 * multiplied by it; delays are in CPU cycles, converted with cycles/second.
 */
import { parseFailed } from "../json-guard.ts";
import { addressesAfterAt, callSites, integerOf, safe } from "./legacy-numbers.ts";
import { addSample, emptyProfile, LEGACY_FORMAT, type LegacyProfile } from "./legacy-profile.ts";
import { parseMemoryMap } from "./memory-map.ts";
import { memoryMapText, TextLines } from "./text-lines.ts";

/** Anchored, each repetition followed by a character it cannot match: linear on hostile lines. */
const SAMPLE = /^(\d+) +(\d+) @(.*)$/;

/**
 * Returns null when the file is not a C++ contention profile: another header, or an
 * attribute only Java profiles have (`format`, `resolution`), which Go leaves to the Java reader.
 */
export function parseContentionText(text: string, maxSamples: number): LegacyProfile | null {
  const lines = new TextLines(text);
  if (!(lines.next() ?? "").startsWith("--- contention")) return null;
  const profile = emptyProfile("contention", [
    ["contentions", "count"],
    ["delay", "nanoseconds"],
  ]);
  profile.periodType = { type: "contentions", unit: "count" };
  profile.period = 1;
  let cyclesPerSecond = 0;

  let line = lines.next();
  for (; line !== null; line = lines.next()) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("---")) break;
    const eq = trimmed.indexOf("=");
    if (eq < 0) break; // the first sample
    const key = trimmed.slice(0, eq).trim();
    const value = trimmed.slice(eq + 1);
    switch (key) {
      case "cycles/second":
        cyclesPerSecond = integerOf(value, "cycles/second");
        break;
      case "sampling period":
        profile.period = integerOf(value, "sampling period");
        break;
      case "ms since reset":
        profile.durationNanos = BigInt(integerOf(value, "ms since reset")) * 1_000_000n;
        break;
      case "discarded samples":
        break;
      default:
        return null;
    }
  }

  const period = profile.period;
  for (; line !== null; line = lines.next()) {
    const trimmed = line.trim();
    if (trimmed.startsWith("---")) break;
    // Go stops at a blank line with an error; a trailing blank line is harmless, so it is skipped.
    if (trimmed === "") continue;
    const m = SAMPLE.exec(trimmed);
    if (!m)
      throw parseFailed(LEGACY_FORMAT, `not a contention sample line: ${trimmed.slice(0, 80)}`);
    let delay = integerOf(m[1]!, "contention delay");
    let count = integerOf(m[2]!, "contention count");
    if (period > 0) {
      // Same operation order as Go (cycles × period ÷ GHz), truncated like int64().
      if (cyclesPerSecond > 0) delay = Math.trunc((delay * period) / (cyclesPerSecond / 1e9));
      count = count * period;
    }
    const values = [safe(count, "contention count"), safe(delay, "contention delay")];
    addSample(
      profile,
      { addresses: callSites(addressesAfterAt(m[3]!), "all_return_addresses"), values },
      maxSamples,
    );
  }
  profile.mappings = parseMemoryMap(memoryMapText(line, lines));
  return profile;
}
