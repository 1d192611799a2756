/**
 * Legacy binary CPU profiles (gperftools profilez, Go runtime/pprof before profile.proto,
 * and the Java agent's variant), after legacy_profile.go parseCPU / cpuProfile /
 * parseCPUSamples and legacy_java_profile.go javaCPUProfile.
 *
 * The file is a sequence of words, 32 or 64 bits, in the writer's byte order: a header
 * 0, 3, 0 (C++/Go) or 1 (Java), the sampling period in µs, 0; then records
 * (count, depth, pc…) up to the trailer record (0, 1, 0); then text: /proc/self/maps for
 * C++/Go, the symbol section for Java. The word size and order are found by trying the
 * four encodings on the header, in Go's order (legacy-headers.ts).
 */
import { parseFailed } from "../json-guard.ts";
import { parseJavaSymbols } from "./java-symbols.ts";
import { type CpuHeader, word } from "./legacy-headers.ts";
import { callSites, countOf, safe } from "./legacy-numbers.ts";
import {
  addSample,
  emptyProfile,
  LEGACY_FORMAT,
  type LegacyProfile,
  type LegacySample,
} from "./legacy-profile.ts";
import { parseMemoryMap } from "./memory-map.ts";

/** The records after the header; returns where the trailing text starts. */
function readRecords(
  bytes: Uint8Array,
  header: CpuHeader,
  periodNs: number,
  adjust: boolean,
  profile: LegacyProfile,
  maxSamples: number,
): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { size } = header.words;
  let at = 5 * size;
  while (at < bytes.length) {
    if (bytes.length - at < 2 * size)
      throw parseFailed(LEGACY_FORMAT, `CPU record cut short at byte ${at}`);
    const countWord = word(view, at, header.words);
    const depthWord = word(view, at + size, header.words);
    at += 2 * size;
    // The depth is untrusted: it must fit in what is left before anything is allocated for it.
    if (depthWord > BigInt(Math.floor((bytes.length - at) / size))) {
      throw parseFailed(
        LEGACY_FORMAT,
        `CPU record at byte ${at - 2 * size} claims ${depthWord} frames past the end of the file`,
      );
    }
    const depth = Number(depthWord);
    const pcs: bigint[] = new Array(depth);
    for (let i = 0; i < depth; i++, at += size) pcs[i] = word(view, at, header.words);
    if (countWord === 0n && depth === 1 && pcs[0] === 0n) return at;
    const count = countOf(countWord, "sample count");
    addSample(
      profile,
      {
        addresses: adjust ? callSites(pcs, "cpu_leaf_kept") : pcs,
        values: [count, safe(count * periodNs, "CPU time")],
      },
      maxSamples,
    );
  }
  // No trailer: Go accepts a file that simply ends after its last record.
  return at;
}

/**
 * When (almost) every sample has the same second frame, that frame was pushed by the
 * signal handler, not by the program: drop it, at most twice (cpuProfile). "Almost"
 * allows one different sample per 32.
 */
function stripSignalFrames(samples: LegacySample[]): void {
  const margin = Math.floor(samples.length / 32);
  for (let iteration = 0; iteration < 2; iteration++) {
    const seen = new Map<bigint, number>();
    for (const s of samples)
      if (s.addresses.length > 1) seen.set(s.addresses[1]!, (seen.get(s.addresses[1]!) ?? 0) + 1);
    // At most one address can reach the threshold, so the map's order does not matter.
    for (const [address, count] of seen) {
      if (count < samples.length - margin) continue;
      for (const s of samples)
        if (s.addresses.length > 1 && s.addresses[1] === address) s.addresses.splice(1, 1);
      break;
    }
  }
  // The handler may report the leaf twice, from the signal context and from unwinding;
  // the unwound copy was adjusted by -1 as a return address.
  for (const s of samples) {
    if (s.addresses.length > 1 && s.addresses[0] === s.addresses[1]! + 1n) s.addresses.splice(1, 1);
  }
}

export function parseBinaryCpu(
  bytes: Uint8Array,
  header: CpuHeader,
  maxSamples: number,
): LegacyProfile {
  const periodNs = safe(Number(header.periodMicros) * 1000, "sampling period");
  const profile = emptyProfile(header.java ? "java-cpu" : "cpu", [
    ["samples", "count"],
    ["cpu", "nanoseconds"],
  ]);
  profile.periodType = { type: "cpu", unit: "nanoseconds" };
  profile.period = periodNs;
  // Java stacks are method ids, not return addresses: they are not adjusted.
  const textStart = readRecords(bytes, header, periodNs, !header.java, profile, maxSamples);
  const text = new TextDecoder().decode(bytes.subarray(textStart));
  if (header.java) {
    profile.symbols = parseJavaSymbols(text);
  } else {
    stripSignalFrames(profile.samples);
    profile.mappings = parseMemoryMap(text);
  }
  return profile;
}
