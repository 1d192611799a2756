/**
 * The estimand `median_paired_log_ratio`: per block, log(candidate/baseline); the
 * estimate is their median, reported as a relative change exp(m) − 1 (also the effect
 * size). The interval is computed on the log scale and mapped back the same way, which
 * keeps it asymmetric the way ratios are. A pair is eligible only when both values are
 * finite and > 0.
 *
 * Which interval (docs/experiments.md, "Small samples"): below ORDER_STATISTIC_BELOW pairs
 * the distribution-free order-statistic interval with Hettmansperger–Sheather interpolation
 * (the BCa bootstrap of a median is liberal there: 8% A/A false positives at n = 10 for a
 * nominal 5%); from there on the BCa bootstrap. Below the confirmatory minimum of the
 * confidence level (6 pairs at 95%) no interval reaches the level and no decision is made.
 */
import { bcaMedianInterval, DEFAULT_RESAMPLES } from "./bootstrap-bca.ts";
import { decide, type Decision, type Polarity } from "./decision.ts";
import { minimumPairsFor, orderStatisticMedianInterval } from "./order-statistic-interval.ts";
import { madOutliers } from "./outliers.ts";
import { wilcoxonSignedRank, type WilcoxonResult } from "./wilcoxon.ts";

export const ESTIMAND = "median_paired_log_ratio";
export const METHOD_BCA = "flameox.bootstrap.bca.median_paired_log_ratio.v1";
export const METHOD_ORDER_STATISTIC =
  "flameox.order_statistic.hs_interpolated.median_paired_log_ratio.v1";
/** @deprecated the method now depends on n; kept for readers of older records. */
export const METHOD = METHOD_BCA;
/** Pairs from which the BCa bootstrap is used; below it, the order-statistic interval. */
export const ORDER_STATISTIC_BELOW = 50;

export interface PairInput {
  block_id: string;
  baseline: number;
  candidate: number;
}

export interface PairedComparisonOptions {
  threshold: number;
  polarity: Polarity;
  confidenceLevel?: number;
  seed?: number;
  resamples?: number;
}

export interface PairValue {
  block_id: string;
  /** The side's value; null when it has none (missing samples). */
  baseline: number | null;
  candidate: number | null;
  /** log(candidate / baseline); null when the pair is not eligible. */
  log_ratio: number | null;
}

export interface IntervalDetail {
  method: string;
  resamples: number | null;
  /** Sign-test rank k, interpolation weight and the coverage bracket (order statistics only). */
  rank: number | null;
  interpolation: number | null;
  bias_correction: number | null;
  acceleration: number | null;
}

export interface PairedComparisonStats {
  estimand: typeof ESTIMAND;
  method: string;
  eligible_pairs: number;
  /** Smallest number of eligible pairs that supports a decision at this confidence level. */
  minimum_pairs: number;
  ineligible_blocks: string[];
  log_ratio_median: number | null;
  relative_change: number | null;
  confidence_low: number | null;
  confidence_high: number | null;
  interval: IntervalDetail | null;
  /** Why there is no interval, or why its decision was withheld; null when neither. */
  interval_note: string | null;
  decision: Decision;
  exploratory: boolean;
  wilcoxon: WilcoxonResult | null;
  /** Blocks whose log ratio is a MAD outlier (kept in every computation). */
  outlier_blocks: string[];
  pairs: PairValue[];
}

export function eligiblePair(p: PairInput): boolean {
  return (
    Number.isFinite(p.baseline) && Number.isFinite(p.candidate) && p.baseline > 0 && p.candidate > 0
  );
}

export function comparePaired(
  pairs: readonly PairInput[],
  options: PairedComparisonOptions,
): PairedComparisonStats {
  const level = options.confidenceLevel ?? 0.95;
  const minimum = minimumPairsFor(level);
  const eligible = pairs.filter(eligiblePair);
  const ratios = eligible.map((p) => Math.log(p.candidate / p.baseline));
  const useBca = eligible.length >= ORDER_STATISTIC_BELOW;
  const base = {
    estimand: ESTIMAND,
    method: useBca ? METHOD_BCA : METHOD_ORDER_STATISTIC,
    eligible_pairs: eligible.length,
    minimum_pairs: minimum,
    ineligible_blocks: pairs.filter((p) => !eligiblePair(p)).map((p) => p.block_id),
    exploratory: eligible.length < minimum,
    pairs: pairs.map((p) => ({
      block_id: p.block_id,
      baseline: Number.isFinite(p.baseline) ? p.baseline : null,
      candidate: Number.isFinite(p.candidate) ? p.candidate : null,
      log_ratio: eligiblePair(p) ? Math.log(p.candidate / p.baseline) : null,
    })),
  } as const;
  if (eligible.length === 0) {
    return {
      ...base,
      log_ratio_median: null,
      relative_change: null,
      confidence_low: null,
      confidence_high: null,
      interval: null,
      interval_note: "no eligible pair",
      decision: "descriptive_only",
      wilcoxon: null,
      outlier_blocks: [],
    };
  }
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  let estimate: number;
  let logLow: number | null;
  let logHigh: number | null;
  let note: string | null = null;
  let interval: IntervalDetail;
  if (useBca) {
    const bca = bcaMedianInterval(ratios, {
      resamples,
      confidenceLevel: level,
      seed: options.seed ?? 0,
    });
    ({ estimate, low: logLow, high: logHigh } = bca);
    if (bca.undefined_reason !== null) note = `BCa interval undefined: ${bca.undefined_reason}`;
    interval = {
      method: METHOD_BCA,
      resamples,
      rank: null,
      interpolation: null,
      bias_correction: bca.bias_correction,
      acceleration: bca.acceleration,
    };
  } else {
    const os = orderStatisticMedianInterval(ratios, level);
    ({ estimate, low: logLow, high: logHigh } = os);
    if (os.low === null)
      note =
        `${eligible.length} eligible pair(s) are below the ${minimum} needed for ` +
        `any ${level * 100}% interval of a median`;
    interval = {
      method: METHOD_ORDER_STATISTIC,
      resamples: null,
      rank: os.rank,
      interpolation: os.interpolation,
      bias_correction: null,
      acceleration: null,
    };
  }
  // Ties can pin both bounds to one value; a zero-width interval claims a certainty the
  // data do not have, so it decides nothing.
  if (note === null && logLow !== null && logLow === logHigh)
    note =
      "the interval has zero width (tied ratios around the median): the data cannot locate " +
      "the median more finely";
  const low = logLow === null ? null : Math.expm1(logLow);
  const high = logHigh === null ? null : Math.expm1(logHigh);
  const outliers = madOutliers(ratios);
  let decision: Decision;
  if (base.exploratory) decision = "descriptive_only";
  else if (note !== null) decision = "inconclusive";
  else decision = decide({ low, high }, options.threshold, options.polarity);
  return {
    ...base,
    log_ratio_median: estimate,
    relative_change: Math.expm1(estimate),
    confidence_low: note === null ? low : null,
    confidence_high: note === null ? high : null,
    interval,
    interval_note: note,
    decision,
    wilcoxon: wilcoxonSignedRank(ratios),
    outlier_blocks: outliers.flagged.map((i) => eligible[i]!.block_id),
  };
}
