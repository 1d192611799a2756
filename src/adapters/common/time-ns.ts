/**
 * Microsecond → nanosecond conversion. Profilers write timestamps as (possibly
 * fractional) microseconds on a clock that can make nanosecond values exceed 2^53, so
 * timestamps are carried as integer nanoseconds *relative to a base microsecond* (exact
 * doubles for any realistic trace span) and only turned into int64 bigint for output.
 */
/**
 * 1000 as a double the JIT cannot see as an integer (a typed array's element; a literal
 * `1000.0` is printed back as `1000` by the transpiler). `whole - baseUs` is an int32 in
 * JavaScriptCore while timestamps are small integers, and its product with an int32 1000
 * overflows once a trace passes 2.1 s: the optimized code then exits on every event until it
 * is recompiled, several times over (a 100 MB trace's scan was compiled 5 times, ~170 ms).
 */
const NS_PER_US = new Float64Array([1000]);

export class NsClock {
  readonly baseUs: number;
  private readonly baseNs: bigint;
  /** baseNs as a double: exact while below 2^53, which absNs checks per value. */
  private readonly baseNsApprox: number;

  constructor(baseUs: number) {
    this.baseUs = Math.trunc(Number.isFinite(baseUs) ? baseUs : 0);
    this.baseNs = BigInt(this.baseUs) * 1000n;
    this.baseNsApprox = this.baseUs * 1000;
  }

  /** Integer nanoseconds since the base: trunc(µs) * 1000 + round(fraction * 1000). */
  relNs(us: number): number {
    const whole = Math.trunc(us);
    return (whole - this.baseUs) * NS_PER_US[0]! + Math.round((us - whole) * 1000);
  }

  /** Absolute int64 nanoseconds for a relative value from `relNs`. */
  absNs(relNs: number): bigint {
    // One bigint allocation in the common case instead of two.
    const approx = this.baseNsApprox + relNs;
    return Number.isSafeInteger(approx) && Number.isSafeInteger(this.baseNsApprox)
      ? BigInt(approx)
      : this.baseNs + BigInt(relNs);
  }
}

/** A duration in (possibly fractional) microseconds as integer nanoseconds. */
export function durationUsToNs(us: number): number {
  return Math.round(us * 1000);
}

/**
 * A slice's thread (CPU) time from its begin's and end's thread clock readings, ns: NaN unless both
 * are known and in order.
 */
export function threadSpanNs(beginNs: number, endNs: number): number {
  const span = Math.round(endNs - beginNs);
  return span >= 0 ? span : Number.NaN;
}
