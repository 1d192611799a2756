/**
 * Calibration by simulation, at reduced replications (bench/stats-calibration.ts runs the
 * full version: 10,000 experiments per case, and n = 60 through the BCa bootstrap).
 * 2,000 seeded experiments per case, log-normal noise (σ = 0.1 on the log scale, independent
 * per run), 6, 10 and 30 pairs, 95% intervals:
 * - A/A (no true difference): the interval should exclude 0 about 5% of the time;
 * - candidate 10% slower: the interval should cover +10% about 95% of the time.
 *
 * Band: the Monte-Carlo error of a 5% rate over 2,000 experiments is √(0.05·0.95/2000) ≈
 * 0.49%; the test allows 5% ± 2.2% (≈ 4.5 errors), so a pass is not luck and a failure
 * means the interval is miscalibrated. (Before the order-statistic interval, the BCa
 * bootstrap gave 8.3% at n = 10, outside this band.)
 */
import { describe, expect, test } from "bun:test";
import { calibrate } from "../../bench/stats-calibration.ts";

const EXPERIMENTS = 2_000;
const BAND = 0.022;
const pct = (p: number, e: number) => `${(100 * p).toFixed(2)}% ± ${(100 * e).toFixed(2)}%`;

describe("calibration of the paired comparison interval", () => {
  for (const pairs of [6, 10, 30]) {
    test(`A/A with ${pairs} pairs excludes 0 in 5% ± 2.2% of ${EXPERIMENTS} experiments`, () => {
      const r = calibrate({ pairs, shift: 0, experiments: EXPERIMENTS, seed: 1000 + pairs });
      console.log(
        `A/A, ${pairs} pairs: interval excludes 0 in ${pct(r.rate, r.mcError)} (nominal ` +
          `5%; ${r.method})`,
      );
      expect(Math.abs(r.rate - 0.05)).toBeLessThanOrEqual(BAND);
    });
    test(`a known 10% shift with ${pairs} pairs is covered in 95% ± 2.2%`, () => {
      const r = calibrate({ pairs, shift: 0.1, experiments: EXPERIMENTS, seed: 2000 + pairs });
      console.log(
        `+10% shift, ${pairs} pairs: interval covers +10% in ${pct(r.rate, r.mcError)} ` +
          `(nominal 95%; ${r.method})`,
      );
      expect(Math.abs(r.rate - 0.95)).toBeLessThanOrEqual(BAND);
    });
  }
});
