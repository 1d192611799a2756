/**
 * Scaling model selection on synthetic data: 5 input sizes spanning two decades
 * (100…10,000), 10 blocks each, 10% multiplicative log-normal noise, 200 seeded datasets
 * per truth. O(n), O(n log n) and O(n²) must be named correctly in ≥ 90% of datasets; pure
 * noise (no dependence on n) must come out `inconclusive` in most and never name a
 * super-linear growth model more than rarely.
 */
import { describe, expect, test } from "bun:test";
import { SeededRandom } from "../../src/analysis/statistics/prng.ts";
import {
  selectScalingModel,
  type ScalingModel,
} from "../../src/analysis/statistics/scaling-fit.ts";

const SIZES = [100, 316, 1000, 3162, 10000];
const BLOCKS = 10;
const DATASETS = 200;
const TRUTHS: Record<string, (n: number) => number> = {
  linear: (n) => n,
  n_log_n: (n) => n * Math.log(n),
  quadratic: (n) => n * n,
  noise: () => 1,
};

function outcomes(truth: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let s = 0; s < DATASETS; s++) {
    const rng = new SeededRandom(7 * s + 1);
    const xs: number[] = [];
    const ys: number[] = [];
    for (const n of SIZES)
      for (let b = 0; b < BLOCKS; b++) {
        xs.push(n);
        ys.push(5 * TRUTHS[truth]!(n) * Math.exp(0.1 * rng.nextNormal()));
      }
    const r = selectScalingModel(xs, ys);
    const key = r.best_model ?? r.status;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe("scaling model selection", () => {
  for (const truth of ["linear", "n_log_n", "quadratic"] as ScalingModel[]) {
    test(
      `names ${truth} on synthetic ${truth} data with 10% noise in ≥ 90% of seeded ` + `datasets`,
      () => {
        const counts = outcomes(truth);
        console.log(`${truth}: ${JSON.stringify(counts)} of ${DATASETS}`);
        expect((counts[truth] ?? 0) / DATASETS).toBeGreaterThanOrEqual(0.9);
      },
    );
  }
  test("says inconclusive on pure noise", () => {
    const counts = outcomes("noise");
    console.log(`pure noise: ${JSON.stringify(counts)} of ${DATASETS}`);
    expect((counts.inconclusive ?? 0) / DATASETS).toBeGreaterThanOrEqual(0.75);
    const growth = (counts.linear ?? 0) + (counts.n_log_n ?? 0) + (counts.quadratic ?? 0);
    expect(growth / DATASETS).toBeLessThanOrEqual(0.02);
  });
  test("refuses to fit fewer than 3 points or a single input size", () => {
    expect(selectScalingModel([10, 20], [1, 2]).status).toBe("insufficient_data");
    expect(selectScalingModel([10, 10, 10], [1, 2, 3]).status).toBe("insufficient_data");
  });
  test("an exact quadratic wins by a wide margin and R² is reported but not used to pick", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((n) => [n, n]);
    const ys = xs.map((n, i) => n * n * (i % 2 ? 1.01 : 0.99));
    const r = selectScalingModel(xs, ys);
    expect(r.best_model).toBe("quadratic");
    expect(r.margin!).toBeGreaterThan(2);
    expect(r.fits.find((f) => f.model === "quadratic")!.r_squared).toBeGreaterThan(0.99);
  });
});
