/**
 * Agreement with scipy on the committed datasets in reference/ (made by make_reference.py;
 * scipy is not needed here). Point estimates, jackknife acceleration and Wilcoxon p-values
 * are deterministic and must match to rounding. BCa bounds depend on the resampling
 * stream, which differs between numpy and flameox, so they must agree statistically:
 *
 *   |ours − scipy| ≤ 4·√2·sd   or   ours ∈ [min, max] of scipy's reruns   (± 1e-12 rounding)
 *
 * where sd, min and max come from 200 scipy reruns with other seeds at the same 9,999
 * resamples. Two independent runs of one algorithm differ with standard deviation √2·sd,
 * so 4√2·sd bounds a false failure at ≈6e-5 per bound under normality. The bootstrap
 * distribution of a median is discrete (order statistics and their midpoints), so a bound
 * often sits on one atom in every rerun (sd ≈ 0): then ours must hit that same atom, and
 * the [min, max] clause accepts any atom scipy itself produced (200 reruns see an atom
 * of probability 2% with probability 98%).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bcaMedianInterval,
  jackknifeAcceleration,
} from "../../src/analysis/statistics/bootstrap-bca.ts";
import { sortedCopy } from "../../src/analysis/statistics/descriptive.ts";
import { benjaminiHochberg } from "../../src/analysis/statistics/benjamini-hochberg.ts";
import { selectScalingModel } from "../../src/analysis/statistics/scaling-fit.ts";
import { spearman } from "../../src/analysis/statistics/spearman.ts";
import { wilcoxonSignedRank } from "../../src/analysis/statistics/wilcoxon.ts";

const DIR = join(import.meta.dir, "reference");
const ROUNDING = 1e-12;

interface Spread {
  sd: number;
  min: number;
  max: number;
}
interface Dataset {
  name: string;
  seed: number;
  resamples: number;
  confidence_level: number;
  baseline: number[];
  candidate: number[];
  expected: {
    log_ratio_median: number;
    bca_low: number;
    bca_high: number;
    bca_low_reruns: Spread;
    bca_high_reruns: Spread;
    acceleration: number;
    wilcoxon_method: string;
    wilcoxon_p: number;
  };
}

const datasets: Dataset[] = readdirSync(join(DIR, "datasets"))
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, "datasets", f), "utf8")));

function agrees(ours: number | null, scipy: number, spread: Spread): boolean {
  if (ours === null) return false;
  const slack = ROUNDING * (1 + Math.abs(scipy));
  return (
    Math.abs(ours - scipy) <= 4 * Math.SQRT2 * spread.sd + slack ||
    (ours >= spread.min - slack && ours <= spread.max + slack)
  );
}

describe("reference agreement with scipy", () => {
  test("at least 20 committed datasets", () => {
    expect(datasets.length).toBeGreaterThanOrEqual(20);
  });

  for (const d of datasets) {
    const ratios = d.baseline.map((b, i) => Math.log(d.candidate[i]! / b));
    test(`${d.name}: point estimate, acceleration and Wilcoxon p match exactly`, () => {
      const interval = bcaMedianInterval(ratios, {
        resamples: d.resamples,
        confidenceLevel: d.confidence_level,
        seed: d.seed,
      });
      expect(interval.estimate).toBe(d.expected.log_ratio_median);
      expect(
        Math.abs(jackknifeAcceleration(sortedCopy(ratios)) - d.expected.acceleration),
      ).toBeLessThanOrEqual(1e-12);
      const w = wilcoxonSignedRank(ratios);
      expect(w.method).toBe(d.expected.wilcoxon_method as never);
      expect(Math.abs(w.p_value! - d.expected.wilcoxon_p)).toBeLessThanOrEqual(
        1e-12 + 1e-9 * d.expected.wilcoxon_p,
      );
    });
    test(`${d.name}: BCa bounds agree within the Monte-Carlo tolerance`, () => {
      const interval = bcaMedianInterval(ratios, {
        resamples: d.resamples,
        confidenceLevel: d.confidence_level,
        seed: d.seed,
      });
      const detail = {
        ours: [interval.low, interval.high],
        scipy: [d.expected.bca_low, d.expected.bca_high],
      };
      expect({
        ok: agrees(interval.low, d.expected.bca_low, d.expected.bca_low_reruns),
        ...detail,
      }).toMatchObject({ ok: true });
      expect({
        ok: agrees(interval.high, d.expected.bca_high, d.expected.bca_high_reruns),
        ...detail,
      }).toMatchObject({ ok: true });
    });
  }

  const extras = JSON.parse(readFileSync(join(DIR, "extras.json"), "utf8"));
  test("Spearman rho and p match scipy.stats.spearmanr", () => {
    for (const c of extras.spearman) {
      const r = spearman(c.x, c.y);
      expect(Math.abs(r.rho! - c.rho)).toBeLessThan(1e-12);
      expect(Math.abs(r.p_value! - c.p)).toBeLessThan(1e-10 * Math.max(1, c.p) + 1e-14);
    }
  });
  test("Benjamini–Hochberg q-values match", () => {
    for (const c of extras.benjamini_hochberg) {
      benjaminiHochberg(c.p).forEach((q, i) => expect(Math.abs(q - c.q[i])).toBeLessThan(1e-15));
    }
  });
  test("least-squares fits and AICc match numpy.linalg.lstsq", () => {
    for (const c of extras.ols_aicc) {
      const selection = selectScalingModel(c.x, c.y, { weighting: "none" });
      for (const fit of selection.fits) {
        const ref = c.fits[fit.model];
        expect(Math.abs(fit.rss - ref.rss) / ref.rss).toBeLessThan(1e-7);
        expect(Math.abs(fit.aicc! - ref.aicc)).toBeLessThan(1e-6);
        expect(
          Math.abs(fit.intercept - ref.coefficients[0]) /
            Math.max(1, Math.abs(ref.coefficients[0])),
        ).toBeLessThan(1e-6);
      }
      // Model choice itself is tested on many seeded datasets in scaling-selection.test.ts.
    }
  });
});
