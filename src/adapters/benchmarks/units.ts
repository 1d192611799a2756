/**
 * Unit normalization for benchmark samples. Durations become nanoseconds (REFERENCE (c):
 * "durations are int64 ns"); a per-iteration time is a quotient (total / loops), so it is
 * kept as value_float in ns rather than rounded. Byte counts become `bytes`. Other units
 * pass through unchanged. A value is stored as value_int only when it is an exact safe
 * integer after conversion.
 */
const TIME_TO_NS: Record<string, number> = {
  s: 1e9,
  sec: 1e9,
  second: 1e9,
  seconds: 1e9,
  ms: 1e6,
  millisecond: 1e6,
  milliseconds: 1e6,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  microsecond: 1e3,
  microseconds: 1e3,
  ns: 1,
  nanosecond: 1,
  nanoseconds: 1,
};
const BYTES = new Set(["b", "byte", "bytes"]);

export interface NormalizedValue {
  value: number;
  unit: string;
}

export function isTimeUnit(unit: string): boolean {
  return TIME_TO_NS[unit.toLowerCase()] !== undefined;
}

export function normalizeUnit(value: number, unit: string): NormalizedValue {
  const key = unit.toLowerCase();
  const factor = TIME_TO_NS[key];
  if (factor !== undefined) return { value: value * factor, unit: "ns" };
  if (BYTES.has(key)) return { value, unit: "bytes" };
  return { value, unit };
}

/** Exactly one of the two columns is set. */
export function valueColumns(value: number): {
  value_int: number | null;
  value_float: number | null;
} {
  return Number.isSafeInteger(value)
    ? { value_int: value, value_float: null }
    : { value_int: null, value_float: value };
}
