/**
 * The estimand `median_paired_log_ratio`: per block, log(candidate/baseline); the
 * estimate is their median, reported as a relative change exp(m) − 1 (also the effect
 * size). The BCa interval is computed on the log scale and mapped back the same way,
 * which keeps it asymmetric the way ratios are. A pair is eligible only when both values
 * are finite and > 0.
 */
import { bcaMedianInterval, DEFAULT_RESAMPLES, type BcaInterval } from "./bootstrap-bca.ts";
import { decide, MIN_CONFIRMATORY_PAIRS, type Decision, type Polarity } from "./decision.ts";
import { madOutliers } from "./outliers.ts";
import { wilcoxonSignedRank, type WilcoxonResult } from "./wilcoxon.ts";

export const ESTIMAND = "median_paired_log_ratio";
export const METHOD = "flameox.bootstrap.bca.median_paired_log_ratio.v1";

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

export interface PairedComparisonStats {
  estimand: typeof ESTIMAND;
  method: typeof METHOD;
  eligible_pairs: number;
  ineligible_blocks: string[];
  log_ratio_median: number | null;
  relative_change: number | null;
  confidence_low: number | null;
  confidence_high: number | null;
  log_interval: BcaInterval | null;
  decision: Decision;
  exploratory: boolean;
  wilcoxon: WilcoxonResult | null;
  /** Blocks whose log ratio is a MAD outlier (kept in every computation). */
  outlier_blocks: string[];
}

export function eligiblePair(p: PairInput): boolean {
  return Number.isFinite(p.baseline) && Number.isFinite(p.candidate) && p.baseline > 0 && p.candidate > 0;
}

export function comparePaired(pairs: readonly PairInput[], options: PairedComparisonOptions): PairedComparisonStats {
  const eligible = pairs.filter(eligiblePair);
  const ratios = eligible.map((p) => Math.log(p.candidate / p.baseline));
  const base = {
    estimand: ESTIMAND,
    method: METHOD,
    eligible_pairs: eligible.length,
    ineligible_blocks: pairs.filter((p) => !eligiblePair(p)).map((p) => p.block_id),
    exploratory: eligible.length < MIN_CONFIRMATORY_PAIRS,
  } as const;
  if (eligible.length === 0) {
    return { ...base, log_ratio_median: null, relative_change: null, confidence_low: null, confidence_high: null, log_interval: null, decision: "inconclusive", wilcoxon: null, outlier_blocks: [] };
  }
  const interval = bcaMedianInterval(ratios, { resamples: options.resamples ?? DEFAULT_RESAMPLES, confidenceLevel: options.confidenceLevel ?? 0.95, seed: options.seed ?? 0 });
  const low = interval.low === null ? null : Math.expm1(interval.low);
  const high = interval.high === null ? null : Math.expm1(interval.high);
  const outliers = madOutliers(ratios);
  return {
    ...base,
    log_ratio_median: interval.estimate,
    relative_change: Math.expm1(interval.estimate),
    confidence_low: low,
    confidence_high: high,
    log_interval: interval,
    decision: decide({ low, high }, options.threshold, options.polarity),
    wilcoxon: wilcoxonSignedRank(ratios),
    outlier_blocks: outliers.flagged.map((i) => eligible[i]!.block_id),
  };
}
