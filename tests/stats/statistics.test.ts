/** Unit behaviour of the pure statistics functions: determinism, edge cases, the decision rule. */
import { describe, expect, test } from "bun:test";
import { benjaminiHochberg } from "../../src/analysis/statistics/benjamini-hochberg.ts";
import { bcaMedianInterval } from "../../src/analysis/statistics/bootstrap-bca.ts";
import { decide } from "../../src/analysis/statistics/decision.ts";
import { mad, median, quantileOfSorted } from "../../src/analysis/statistics/descriptive.ts";
import { ndtr, ndtri } from "../../src/analysis/statistics/normal.ts";
import { madOutliers } from "../../src/analysis/statistics/outliers.ts";
import { comparePaired } from "../../src/analysis/statistics/paired-log-ratio.ts";
import { SeededRandom } from "../../src/analysis/statistics/prng.ts";
import { spearman } from "../../src/analysis/statistics/spearman.ts";
import {
  signedRankDistribution,
  wilcoxonSignedRank,
} from "../../src/analysis/statistics/wilcoxon.ts";

describe("SeededRandom", () => {
  test("the same seed gives the same stream; different seeds differ", () => {
    const a = new SeededRandom(42);
    const b = new SeededRandom(42);
    const c = new SeededRandom(43);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(xs);
  });
  test("nextInt is uniform enough and shuffle is a permutation", () => {
    const rng = new SeededRandom(1);
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[rng.nextInt(6)]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400);
    expect(rng.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
  });
  test("refuses a negative or fractional seed", () => {
    expect(() => new SeededRandom(-1)).toThrow(RangeError);
    expect(() => new SeededRandom(1.5)).toThrow(RangeError);
  });
});

describe("descriptive statistics and the normal distribution", () => {
  test("median, type-7 quantile and MAD follow numpy", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(quantileOfSorted([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(mad([1, 1, 2, 2, 4, 6, 9])).toBe(1);
  });
  test("ndtri inverts ndtr", () => {
    for (const p of [1e-12, 0.001, 0.025, 0.5, 0.8, 0.999999])
      expect(Math.abs(ndtr(ndtri(p)) - p) / p).toBeLessThan(1e-12);
    expect(ndtri(0.975)).toBeCloseTo(1.959963984540054, 13);
  });
});

describe("bootstrap, Wilcoxon, outliers", () => {
  test("identical ratios give no interval (not a zero-width one), with the reason", () => {
    const r = bcaMedianInterval([0.1, 0.1, 0.1, 0.1]);
    expect(r).toMatchObject({ degenerate: true, low: null, high: null, estimate: 0.1 });
    expect(r.undefined_reason).toContain("all values are equal");
  });
  test("the interval is reproducible from its seed", () => {
    const xs = [0.1, -0.05, 0.2, 0.03, 0.07, 0.11, -0.02];
    expect(bcaMedianInterval(xs, { seed: 9 })).toEqual(bcaMedianInterval(xs, { seed: 9 }));
  });
  test("exact signed-rank distribution sums to 1 and is symmetric", () => {
    const pmf = signedRankDistribution(12);
    expect(Math.abs(pmf.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-15);
    expect(pmf[3]).toBe(pmf[pmf.length - 4]!);
  });
  test("all-positive differences of n = 6 give the exact p = 2/64", () => {
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5, 6]).p_value).toBe(2 / 64);
  });
  test("MAD outliers are flagged by index and nothing is dropped", () => {
    const values = [1, 1.1, 0.9, 1.05, 0.95, 10];
    const flags = madOutliers(values);
    expect(flags.flagged).toEqual([5]);
    expect(values.length).toBe(6);
  });
});

describe("decision rule", () => {
  test("lower_is_better and higher_is_better mirror each other", () => {
    expect(decide({ low: 0.12, high: 0.3 }, 0.05, "lower_is_better")).toBe("meaningful_regression");
    expect(decide({ low: -0.3, high: -0.08 }, 0.05, "lower_is_better")).toBe(
      "meaningful_improvement",
    );
    expect(decide({ low: 0.12, high: 0.3 }, 0.05, "higher_is_better")).toBe(
      "meaningful_improvement",
    );
    expect(decide({ low: -0.3, high: -0.08 }, 0.05, "higher_is_better")).toBe(
      "meaningful_regression",
    );
  });
  test(
    "inside ±t is no meaningful difference; straddling t, neutral polarity or no interval is " +
      "inconclusive",
    () => {
      expect(decide({ low: -0.02, high: 0.03 }, 0.05, "lower_is_better")).toBe(
        "no_meaningful_difference",
      );
      expect(decide({ low: 0.01, high: 0.2 }, 0.05, "lower_is_better")).toBe("inconclusive");
      expect(decide({ low: 0.1, high: 0.2 }, 0.05, "neutral")).toBe("inconclusive");
      expect(decide({ low: null, high: null }, 0.05, "lower_is_better")).toBe("inconclusive");
    },
  );
  test("fewer than 3 eligible pairs is exploratory; ineligible pairs are named", () => {
    const r = comparePaired(
      [
        { block_id: "a", baseline: 1, candidate: 2 },
        { block_id: "b", baseline: 1, candidate: 2.1 },
        { block_id: "c", baseline: 0, candidate: 2 },
      ],
      { threshold: 0.05, polarity: "lower_is_better" },
    );
    expect(r.exploratory).toBe(true);
    expect(r.eligible_pairs).toBe(2);
    expect(r.ineligible_blocks).toEqual(["c"]);
  });
});

describe("Spearman and Benjamini–Hochberg", () => {
  test("a monotone relation has rho 1", () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 25, 100]).rho).toBe(1);
  });
  test("BH q-values are monotone in p and capped at 1", () => {
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.5]);
    // sorted p 0.01, 0.03, 0.04, 0.5 → m·p/rank 0.04, 0.06, 0.0533, 0.5 → step-up minimum from the
    // top
    expect(q).toEqual([0.04, (4 * 0.04) / 3, (4 * 0.04) / 3, 0.5]);
  });
});
