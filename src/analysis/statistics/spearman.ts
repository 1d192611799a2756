/**
 * Spearman rank correlation with the Student-t p-value scipy.stats.spearmanr reports:
 * ρ is Pearson's r of average ranks; t = ρ·√((n − 2)/(1 − ρ²)) on n − 2 degrees of freedom.
 */
import { averageRanks } from "./ranks.ts";
import { studentTTwoSided } from "./special.ts";

export interface SpearmanResult {
  rho: number | null;
  p_value: number | null;
  n: number;
}

export function spearman(xs: readonly number[], ys: readonly number[]): SpearmanResult {
  const n = xs.length;
  if (n !== ys.length)
    throw new RangeError(`Expected paired samples of equal length but found ${n} and ${ys.length}`);
  if (n < 3) return { rho: null, p_value: null, n };
  const rx = averageRanks(xs).ranks;
  const ry = averageRanks(ys).ranks;
  const mx = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (rx[i]! - mx) * (ry[i]! - mx);
    sxx += (rx[i]! - mx) ** 2;
    syy += (ry[i]! - mx) ** 2;
  }
  if (sxx === 0 || syy === 0) return { rho: null, p_value: null, n };
  const rho = Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  if (Math.abs(rho) === 1) return { rho, p_value: 0, n };
  const t = rho * Math.sqrt((n - 2) / ((1 + rho) * (1 - rho)));
  return { rho, p_value: studentTTwoSided(t, n - 2), n };
}
