/**
 * Distribution-free confidence interval for a median from order statistics (the sign-test
 * interval), with Hettmansperger & Sheather's interpolation ("Confidence intervals based on
 * interpolated order statistics", Statist. Probab. Lett. 4 (1986) 75–79).
 *
 * For n values, [X₍ₖ₎, X₍ₙ₋ₖ₊₁₎] covers the population median with probability
 *   γₖ = P(k ≤ B ≤ n − k),  B ~ Binomial(n, ½),
 * for any continuous distribution. γₖ jumps in coarse steps at small n, so the interval
 * whose γₖ ≥ level is conservative (at n = 10, 95% asks for k = 2 with γ = 97.9%). The
 * interpolation moves each bound between X₍ₖ₎ and X₍ₖ₊₁₎ by
 *   I = (γₖ − level) / (γₖ − γₖ₊₁),  λ = (n − k)·I / (k + (n − 2k)·I),
 * which is exact for symmetric distributions (the log ratio of two identically distributed
 * runs is symmetric) and always lies between the γₖ₊₁ and γₖ intervals otherwise.
 *
 * The smallest n with any interval at all is the one whose widest interval, [min, max],
 * reaches the level: 1 − 2·½ⁿ ≥ level, i.e. n ≥ log₂(2 / (1 − level)) — 6 at 95%, 5 at 90%,
 * 8 at 99%. Below it no interval of this kind can honour the level; that is the
 * confirmatory minimum of a comparison.
 */
import { medianOfSorted, sortedCopy } from "./descriptive.ts";

/** The smallest sample whose [min, max] covers the median with probability ≥ level. */
export function minimumPairsFor(level: number): number {
  if (!(level > 0 && level < 1))
    throw new RangeError(`Expected confidence level in (0, 1) but found ${level}`);
  return Math.max(2, Math.ceil(Math.log2(2 / (1 - level)) - 1e-12));
}

/** γₖ = P(k ≤ B ≤ n − k) for B ~ Binomial(n, ½), k ≥ 1, exactly in doubles up to n ≈ 1000. */
export function signCoverage(n: number, k: number): number {
  if (k < 1 || 2 * k > n + 1) return 0;
  // P(B ≤ k − 1) accumulated in log space so large n does not underflow.
  let tail = 0;
  let logTerm = -n * Math.LN2; // log C(n, 0)·½ⁿ
  for (let j = 0; j < k; j++) {
    tail += Math.exp(logTerm);
    logTerm += Math.log((n - j) / (j + 1));
  }
  return Math.max(0, 1 - 2 * tail);
}

export interface OrderStatisticInterval {
  estimate: number;
  /** null when n is below minimumPairsFor(level). */
  low: number | null;
  high: number | null;
  confidence_level: number;
  /** 1-based rank k of the outer order statistics and the interpolation weight λ. */
  rank: number | null;
  interpolation: number | null;
  /** Coverage of the outer [X₍ₖ₎, X₍ₙ₋ₖ₊₁₎] and the inner interval it interpolates toward. */
  coverage_bracket: [number, number] | null;
}

export function orderStatisticMedianInterval(
  values: ArrayLike<number>,
  level = 0.95,
): OrderStatisticInterval {
  const sorted = sortedCopy(values);
  const n = sorted.length;
  const estimate = medianOfSorted(sorted);
  const none = {
    estimate,
    low: null,
    high: null,
    confidence_level: level,
    rank: null,
    interpolation: null,
    coverage_bracket: null,
  };
  if (n < minimumPairsFor(level)) return none;
  // The largest k whose interval still reaches the level.
  let k = 1;
  while (2 * (k + 1) <= n && signCoverage(n, k + 1) >= level) k++;
  const outer = signCoverage(n, k);
  const x = (rank: number) => sorted[rank - 1]!;
  // The inner interval [X₍ₖ₊₁₎, X₍ₙ₋ₖ₎] must exist for interpolation (k + 1 ≤ n − k).
  if (k + 1 > n - k)
    return {
      ...none,
      low: x(k),
      high: x(n - k + 1),
      rank: k,
      interpolation: 0,
      coverage_bracket: [outer, outer],
    };
  const inner = signCoverage(n, k + 1);
  const share = (outer - level) / (outer - inner);
  const lambda = ((n - k) * share) / (k + (n - 2 * k) * share);
  return {
    estimate,
    low: (1 - lambda) * x(k) + lambda * x(k + 1),
    high: (1 - lambda) * x(n - k + 1) + lambda * x(n - k),
    confidence_level: level,
    rank: k,
    interpolation: lambda,
    coverage_bracket: [inner, outer],
  };
}
