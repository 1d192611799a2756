/**
 * The decision rule of a comparison (REFERENCE (e) compare_run_sets): an interval on the
 * relative change [low, high] against a practical threshold t > 0.
 *   lower_is_better:  high ≤ −t → meaningful_improvement;  low ≥ t → meaningful_regression
 *   higher_is_better: the mirror image
 *   [low, high] ⊆ [−t, t] → no_meaningful_difference; anything else → inconclusive
 * Neutral polarity or no interval is always inconclusive. Too few pairs for the confidence
 * level (order-statistic-interval.ts: minimumPairsFor) give `descriptive_only`: no decision.
 */
export const POLARITIES = ["lower_is_better", "higher_is_better", "neutral"] as const;
export type Polarity = (typeof POLARITIES)[number];

export const DECISIONS = [
  "meaningful_improvement",
  "meaningful_regression",
  "no_meaningful_difference",
  "inconclusive",
  "descriptive_only",
] as const;
export type Decision = (typeof DECISIONS)[number];

export function decide(
  interval: { low: number | null; high: number | null },
  threshold: number,
  polarity: Polarity,
): Exclude<Decision, "descriptive_only"> {
  if (!(threshold > 0))
    throw new RangeError(`Expected a practical threshold greater than 0 but found ${threshold}`);
  const { low, high } = interval;
  if (low === null || high === null || !Number.isFinite(low) || !Number.isFinite(high))
    return "inconclusive";
  if (low >= -threshold && high <= threshold) return "no_meaningful_difference";
  if (polarity === "neutral") return "inconclusive";
  const better = polarity === "lower_is_better" ? high <= -threshold : low >= threshold;
  const worse = polarity === "lower_is_better" ? low >= threshold : high <= -threshold;
  if (better) return "meaningful_improvement";
  if (worse) return "meaningful_regression";
  return "inconclusive";
}
