/**
 * What the trace core knows of an event: its kind (a slice, one end of a slice, or a
 * plain event), the name a slice gets when it has none, and the counts a producer's
 * scan keeps of what it had to skip or repair. Producers (Chrome JSON, Perfetto) map
 * their own phases and packet types onto these kinds; everything after the scan (B/E
 * matching, nesting, rows) reads only the kinds.
 */
export const KIND_SKIPPED = 0; // metadata, malformed, no ts, or an E folded into its B
export const KIND_COMPLETE = 1; // X
export const KIND_BEGIN = 2; // B (gets its duration from the matching E)
export const KIND_END = 3; // E (until matched)
export const KIND_EVENT = 4; // instants, counters, flows, samples…: kept, no duration

export const UNNAMED = "(unnamed)";

export interface ScanCounts {
  malformed: number;
  missingTs: number;
  unknownPhases: number;
  clamped: number;
  missingDur: number;
  metadata: number;
}

/** Counts of a scan that has skipped or repaired nothing yet. */
export function noScanCounts(): ScanCounts {
  return { malformed: 0, missingTs: 0, unknownPhases: 0, clamped: 0, missingDur: 0, metadata: 0 };
}
