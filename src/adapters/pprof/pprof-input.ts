/**
 * A decoded pprof profile (profile.proto), the shape both parse paths build: string table
 * indexes resolved lazily, samples in flat typed arrays (they are the bulk).
 */
export interface PprofLine {
  functionId: number;
  line: number;
  column: number;
}

export interface PprofLocation {
  id: number;
  mappingId: number;
  address: bigint;
  /** Innermost first: lines[0] is the inlined callee, the last line its caller. */
  lines: PprofLine[];
}

export interface PprofFunction {
  id: number;
  name: number;
  systemName: number;
  filename: number;
  startLine: number;
}

export interface PprofMapping {
  id: number;
  filename: number;
  buildId: number;
}

export interface PprofLabel {
  key: number;
  str: number;
  num: number;
  numUnit: number;
}

export interface PprofInput {
  strings: string[];
  sampleTypes: { type: number; unit: number }[];
  /** Per sample: its location ids (leaf first) from locationStart[i] to locationStart[i+1]. */
  locationIds: Float64Array;
  locationStart: Int32Array;
  /** Per sample: sampleTypes.length values (missing ones 0). */
  values: Float64Array;
  labels: PprofLabel[][];
  sampleCount: number;
  locations: PprofLocation[];
  functions: PprofFunction[];
  mappings: PprofMapping[];
  timeNanos: bigint;
  durationNanos: bigint;
  periodType: { type: number; unit: number } | null;
  period: number;
  defaultSampleType: number;
}

export const PPROF_FORMAT = "pprof profile";
