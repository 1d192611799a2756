/**
 * Per-event flags (a bit set while scanning, rendered as a comma-separated list in
 * `trace_events.flags`). The rendered strings are cached per bit combination so writing
 * rows does no string building.
 */
export const FLAG_CLAMPED = 1; // negative or non-numeric dur, set to 0
export const FLAG_UNMATCHED_BEGIN = 2; // B without its E: ends at the track's last timestamp
export const FLAG_MISSING_DUR = 4; // X without dur (still open when tracing stopped): same
export const FLAG_ARGS_TRUNCATED = 8; // args_json cut at maxArgsBytes

const NAMES: [number, string][] = [
  [FLAG_CLAMPED, "clamped"],
  [FLAG_UNMATCHED_BEGIN, "unmatched_begin"],
  [FLAG_MISSING_DUR, "missing_dur"],
  [FLAG_ARGS_TRUNCATED, "args_truncated"],
];

const rendered: (string | null)[] = [];
for (let mask = 0; mask < 16; mask++) {
  const names = NAMES.filter(([bit]) => (mask & bit) !== 0).map(([, name]) => name);
  rendered.push(names.length > 0 ? names.join(",") : null);
}

export function flagsText(mask: number): string | null {
  return rendered[mask] ?? null;
}
