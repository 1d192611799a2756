/**
 * What every legacy pprof reader produces before it becomes a `PprofInput`: samples as raw
 * address stacks (leaf first, already adjusted the way Go's legacy_profile.go adjusts
 * them), symbols for the addresses that have them (Java), and the memory map. Keeping
 * stacks as addresses until the end lets the CPU reader rewrite them (its signal-frame
 * heuristics) before locations are numbered.
 */
import { tooLarge } from "../json-guard.ts";

export const LEGACY_FORMAT = "legacy pprof profile";

export interface LegacySample {
  /** Leaf first. */
  addresses: bigint[];
  /** One per sample type. */
  values: number[];
  /** Numeric labels (heap profiles record the block size as `bytes`). */
  numLabels?: { key: string; value: number }[];
}

/** A symbol an address resolves to (Java profiles carry their own symbol section). */
export interface LegacySymbol {
  name: string;
  file: string;
  /** 0 when unknown. */
  line: number;
}

export interface LegacyMapping {
  start: bigint;
  limit: bigint;
  offset: bigint;
  file: string;
}

export interface LegacyProfile {
  /** Which legacy form it was read from (reported in the summary). */
  form: string;
  sampleTypes: { type: string; unit: string }[];
  periodType: { type: string; unit: string } | null;
  period: number;
  durationNanos: bigint;
  samples: LegacySample[];
  symbols: Map<bigint, LegacySymbol>;
  mappings: LegacyMapping[];
  /** Notes on how the reader interpreted the file, published as limitations. */
  notes: { code: string; message: string }[];
}

export function emptyProfile(form: string, sampleTypes: [string, string][]): LegacyProfile {
  return {
    form,
    sampleTypes: sampleTypes.map(([type, unit]) => ({ type, unit })),
    periodType: null,
    period: 0,
    durationNanos: 0n,
    samples: [],
    symbols: new Map(),
    mappings: [],
    notes: [],
  };
}

/** Appends a sample, failing as soon as the profile holds more than the adapter's event limit. */
export function addSample(profile: LegacyProfile, sample: LegacySample, maxSamples: number): void {
  if (profile.samples.length >= maxSamples)
    throw tooLarge(LEGACY_FORMAT, "samples", profile.samples.length + 1, maxSamples);
  profile.samples.push(sample);
}
