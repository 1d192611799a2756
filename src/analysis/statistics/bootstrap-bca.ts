/**
 * BCa (bias-corrected and accelerated) bootstrap interval of the median of one sample,
 * after Efron & Tibshirani, "An Introduction to the Bootstrap" (1993), §14.3 and eq. 14.15,
 * computed the way scipy.stats.bootstrap(method="BCa") does:
 *   z0 = Φ⁻¹((#{θ*<θ̂} + #{θ*≤θ̂}) / 2B)
 *   a  = Σ Uᵢ³ / (6·(Σ Uᵢ²)^{3/2}),  Uᵢ = (n−1)(θ̄₍.₎ − θ̂₍ᵢ₎)  (jackknife)
 *   αⱼ = Φ(z0 + (z0 + z_αⱼ) / (1 − a(z0 + z_αⱼ)))
 * and the bounds are the type-7 quantiles of the B bootstrap medians at α₁, α₂.
 * A paired design resamples whole pairs, which for a statistic of per-pair log ratios is
 * the same as resampling the ratios, so one sample suffices.
 */
import { medianOfSorted, quantileOfSorted, sortedCopy } from "./descriptive.ts";
import { ndtr, ndtri } from "./normal.ts";
import { SeededRandom } from "./prng.ts";

export const DEFAULT_RESAMPLES = 9_999;

export interface BcaOptions {
  resamples?: number;
  confidenceLevel?: number;
  seed?: number;
}

export interface BcaInterval {
  estimate: number;
  /** null when the interval is undefined; `undefined_reason` says why. */
  low: number | null;
  high: number | null;
  confidence_level: number;
  resamples: number;
  seed: number;
  bias_correction: number | null;
  acceleration: number | null;
  /** All values equal: there is no spread to resample, so no interval. */
  degenerate: boolean;
  /**
   * Why there is no interval, where scipy's BCa gives NaN: fewer than 2 values, all values
   * equal, every jackknife median equal (acceleration 0/0: ties around the median), or
   * every bootstrap median on one side of the estimate (bias correction ±∞).
   */
  undefined_reason: string | null;
}

export function bcaMedianInterval(
  values: ArrayLike<number>,
  options: BcaOptions = {},
): BcaInterval {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.confidenceLevel ?? 0.95;
  const seed = options.seed ?? 0;
  if (!(level > 0 && level < 1))
    throw new RangeError(`Expected confidence level in (0, 1) but found ${level}`);
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`Expected a positive integer resample count but found ${resamples}`);
  const sorted = sortedCopy(values);
  const n = sorted.length;
  const estimate = medianOfSorted(sorted);
  const base = { estimate, confidence_level: level, resamples, seed };
  if (n < 2)
    return {
      ...base,
      low: null,
      high: null,
      bias_correction: null,
      acceleration: null,
      degenerate: false,
      undefined_reason: "fewer than 2 values",
    };
  if (sorted[0] === sorted[n - 1])
    return {
      ...base,
      low: null,
      high: null,
      bias_correction: null,
      acceleration: null,
      degenerate: true,
      undefined_reason: "all values are equal, so there is no spread to resample",
    };

  const boot = bootstrapMedians(sorted, resamples, new SeededRandom(seed)).sort();
  let below = 0;
  let atOrBelow = 0;
  for (let b = 0; b < resamples; b++) {
    if (boot[b]! < estimate) below++;
    if (boot[b]! <= estimate) atOrBelow++;
  }
  const z0 = ndtri((below + atOrBelow) / (2 * resamples));
  const a = jackknifeAcceleration(sorted);
  // A zero-width interval here would claim certainty the data do not have (scipy: NaN).
  if (!Number.isFinite(a))
    return {
      ...base,
      low: null,
      high: null,
      bias_correction: z0,
      acceleration: null,
      degenerate: false,
      undefined_reason:
        "every leave-one-out median is equal (ties around the median), so the BCa " +
        "acceleration is 0/0",
    };
  if (!Number.isFinite(z0))
    return {
      ...base,
      low: null,
      high: null,
      bias_correction: null,
      acceleration: a,
      degenerate: false,
      undefined_reason:
        "every bootstrap median lies on one side of the estimate (ties), so the BCa bias " +
        "correction is infinite",
    };
  const alpha = (1 - level) / 2;
  const zAlpha = ndtri(alpha);
  const adjust = (z: number) => ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)));
  const low = quantileOfSorted(boot, adjust(zAlpha));
  const high = quantileOfSorted(boot, adjust(-zAlpha));
  if (!Number.isFinite(low) || !Number.isFinite(high)) {
    return {
      ...base,
      low: null,
      high: null,
      bias_correction: z0,
      acceleration: a,
      degenerate: false,
      undefined_reason: "the adjusted BCa percentiles are not finite",
    };
  }
  return {
    ...base,
    low,
    high,
    bias_correction: z0,
    acceleration: a,
    degenerate: false,
    undefined_reason: null,
  };
}

/**
 * B medians of resamples with replacement. Drawing n indices into the sorted sample and
 * counting them finds the resample's middle order statistics in O(n) without sorting.
 */
export function bootstrapMedians(
  sorted: Float64Array,
  resamples: number,
  rng: SeededRandom,
): Float64Array {
  const n = sorted.length;
  const counts = new Int32Array(n);
  const out = new Float64Array(resamples);
  const lowRank = (n - 1) >> 1; // 0-based rank of the lower middle element
  const highRank = n >> 1;
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[rng.nextInt(n)]!++;
    let seen = 0;
    let lowValue = NaN;
    for (let i = 0; i < n; i++) {
      const next = seen + counts[i]!;
      if (Number.isNaN(lowValue) && next > lowRank) lowValue = sorted[i]!;
      if (next > highRank) {
        out[b] = lowRank === highRank ? lowValue : (lowValue + sorted[i]!) / 2;
        break;
      }
      seen = next;
    }
  }
  return out;
}

/**
 * Acceleration from leave-one-out medians; NaN (as in scipy) when every jackknife median is equal.
 */
export function jackknifeAcceleration(sorted: Float64Array): number {
  const n = sorted.length;
  const theta = new Float64Array(n);
  const m = n - 1;
  const at = (skip: number, k: number) => sorted[k < skip ? k : k + 1]!;
  for (let i = 0; i < n; i++) {
    const mid = m >> 1;
    theta[i] = m % 2 === 1 ? at(i, mid) : (at(i, mid - 1) + at(i, mid)) / 2;
  }
  // Every leave-one-out median equal: 0/0. Tested directly, because the floating-point mean
  // of n equal values need not equal them, which would turn 0/0 into a spurious number.
  if (theta.every((t) => t === theta[0])) return NaN;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += theta[i]!;
  mean /= n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const u = (n - 1) * (mean - theta[i]!);
    num += (u * u * u) / (n * n * n);
    den += (u * u) / (n * n);
  }
  return den === 0 ? NaN : num / (6 * den ** 1.5);
}
