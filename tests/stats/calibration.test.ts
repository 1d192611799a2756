/**
 * Calibration by simulation. 1,000 seeded experiments per case, log-normal noise
 * (σ = 0.1 on the log scale, independent per run), 10 and 30 pairs, 95% BCa intervals:
 * - A/A (no true difference): the interval should exclude 0 about 5% of the time;
 * - candidate 10% slower: the interval should cover +10% about 95% of the time.
 *
 * Resamples: 1,999 per interval here (9,999 in the product). Hall (1986, Ann. Statist.
 * 14:1453) shows the coverage error that a finite B adds is O(1/B), ≈5e-4 at B = 1,999,
 * an order below the Monte-Carlo error of the rate itself (√(0.05·0.95/1000) ≈ 0.69%).
 * B = 9,999 would make this lane ~6× slower for no visible change.
 *
 * Band: the median of n pairs is a coarse statistic and the bootstrap of a median is known
 * to be somewhat liberal at n = 10 (discrete resampling distribution), so the band allows
 * the nominal 5% ± 4 Monte-Carlo errors (≈ 2.2%–7.8%) widened to [2%, 9%] for n = 10;
 * anything outside means the interval is miscalibrated, not unlucky.
 */
import { describe, expect, test } from "bun:test";
import { comparePaired } from "../../src/analysis/statistics/paired-log-ratio.ts";
import { SeededRandom } from "../../src/analysis/statistics/prng.ts";

const EXPERIMENTS = 1_000;
const RESAMPLES = 1_999;
const SIGMA = 0.1;

function simulate(pairs: number, shift: number, seed: number): { excludesZero: number; coversTruth: number } {
  const rng = new SeededRandom(seed);
  let excludesZero = 0;
  let coversTruth = 0;
  for (let e = 0; e < EXPERIMENTS; e++) {
    const data = Array.from({ length: pairs }, (_, i) => ({
      block_id: String(i),
      baseline: Math.exp(SIGMA * rng.nextNormal()),
      candidate: (1 + shift) * Math.exp(SIGMA * rng.nextNormal()),
    }));
    const r = comparePaired(data, { threshold: 0.05, polarity: "lower_is_better", seed: e, resamples: RESAMPLES });
    if (r.confidence_low! > 0 || r.confidence_high! < 0) excludesZero++;
    if (r.confidence_low! <= shift && shift <= r.confidence_high!) coversTruth++;
  }
  return { excludesZero: excludesZero / EXPERIMENTS, coversTruth: coversTruth / EXPERIMENTS };
}

const mcError = (p: number) => Math.sqrt((p * (1 - p)) / EXPERIMENTS);
const pct = (p: number) => `${(100 * p).toFixed(1)}% ± ${(100 * mcError(p)).toFixed(1)}%`;

describe("calibration of the paired BCa interval", () => {
  for (const pairs of [10, 30]) {
    const band = pairs === 10 ? { aa: [0.02, 0.09], cover: [0.91, 0.98] } : { aa: [0.022, 0.078], cover: [0.922, 0.978] };
    test(`A/A with ${pairs} pairs excludes 0 in about 5% of ${EXPERIMENTS} experiments`, () => {
      const { excludesZero } = simulate(pairs, 0, 1000 + pairs);
      console.log(`A/A, ${pairs} pairs: interval excludes 0 in ${pct(excludesZero)} (nominal 5%)`);
      expect(excludesZero).toBeGreaterThanOrEqual(band.aa[0]!);
      expect(excludesZero).toBeLessThanOrEqual(band.aa[1]!);
    });
    test(`a known 10% shift with ${pairs} pairs is covered about 95% of the time`, () => {
      const { coversTruth } = simulate(pairs, 0.1, 2000 + pairs);
      console.log(`+10% shift, ${pairs} pairs: interval covers +10% in ${pct(coversTruth)} (nominal 95%)`);
      expect(coversTruth).toBeGreaterThanOrEqual(band.cover[0]!);
      expect(coversTruth).toBeLessThanOrEqual(band.cover[1]!);
    });
  }
});
