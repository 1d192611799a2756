/**
 * Two-sided Wilcoxon signed-rank test of "the differences are symmetric about 0", a
 * secondary check beside the bootstrap interval. Zeros are dropped (Wilcoxon's method).
 * - Exact null distribution of W⁺ when at most 50 non-zero differences remain and none
 *   of their absolute values tie: p = 2·min(P(W⁺ ≥ w), P(W⁺ ≤ w)), capped at 1.
 * - Otherwise the normal approximation with the tie correction
 *   Var = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 and a 0.5 continuity correction toward the mean.
 * Both follow scipy.stats.wilcoxon(method="exact" | "asymptotic", correction=True).
 */
import { normalSf } from "./normal.ts";
import { averageRanks } from "./ranks.ts";

export const EXACT_MAX_N = 50;

export interface WilcoxonResult {
  /** W⁺, the sum of ranks of positive differences. */
  statistic: number;
  p_value: number | null;
  method: "exact" | "normal_approximation" | "none";
  n_used: number;
  zeros_dropped: number;
  ties: boolean;
}

export function wilcoxonSignedRank(differences: ArrayLike<number>): WilcoxonResult {
  const nonzero: number[] = [];
  for (let i = 0; i < differences.length; i++)
    if (differences[i] !== 0) nonzero.push(differences[i]!);
  const zeros = differences.length - nonzero.length;
  const n = nonzero.length;
  if (n === 0)
    return {
      statistic: 0,
      p_value: null,
      method: "none",
      n_used: 0,
      zeros_dropped: zeros,
      ties: false,
    };
  const { ranks, tieSizes } = averageRanks(nonzero.map(Math.abs));
  let wPlus = 0;
  for (let i = 0; i < n; i++) if (nonzero[i]! > 0) wPlus += ranks[i]!;
  const ties = tieSizes.some((t) => t > 1);
  if (n <= EXACT_MAX_N && !ties && zeros === 0) {
    const pmf = signedRankDistribution(n);
    let cdf = 0;
    for (let k = 0; k <= wPlus; k++) cdf += pmf[k]!;
    let sf = 0;
    for (let k = wPlus; k < pmf.length; k++) sf += pmf[k]!;
    return {
      statistic: wPlus,
      p_value: Math.min(1, 2 * Math.min(cdf, sf)),
      method: "exact",
      n_used: n,
      zeros_dropped: zeros,
      ties,
    };
  }
  const mean = (n * (n + 1)) / 4;
  const tieTerm = tieSizes.reduce((acc, t) => acc + (t * t * t - t), 0);
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieTerm / 2) / 24);
  if (se === 0)
    return {
      statistic: wPlus,
      p_value: null,
      method: "none",
      n_used: n,
      zeros_dropped: zeros,
      ties,
    };
  let z = (wPlus - mean) / se;
  z -= (Math.sign(z) * 0.5) / se;
  return {
    statistic: wPlus,
    p_value: Math.min(1, 2 * normalSf(Math.abs(z))),
    method: "normal_approximation",
    n_used: n,
    zeros_dropped: zeros,
    ties,
  };
}

const cache = new Map<number, Float64Array>();

/** P(W⁺ = k) for k = 0…n(n+1)/2 by the subset-sum recursion over ranks 1…n. */
export function signedRankDistribution(n: number): Float64Array {
  const hit = cache.get(n);
  if (hit) return hit;
  const max = (n * (n + 1)) / 2;
  // Counts reach C(n, n/2)-sized numbers (≈1e14 at n=50), exact in doubles below 2^53.
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let r = 1; r <= n; r++) for (let k = max; k >= r; k--) counts[k]! += counts[k - r]!;
  const total = 2 ** n;
  const pmf = counts.map((c) => c / total);
  cache.set(n, pmf);
  return pmf;
}
