/**
 * Complexity model selection for `analyze scaling`: least squares of
 * y = a (constant) or y = a + b·f(n) for f ∈ {log n, n, n log n, n²}, ranked by AICc,
 *   AIC  = n·ln(RSS/n) + n·(ln 2π + 1) + 2k   (Gaussian log-likelihood at the MLE σ²)
 *   AICc = AIC + 2k(k+1)/(n − k − 1)          (Hurvich & Tsai, 1989)
 * with k the number of regression coefficients, as statsmodels counts them. A best fit is
 * named only when its AICc beats the runner-up by ≥ 2 (Burnham & Anderson's "substantial
 * support" rule); otherwise the answer is `inconclusive`. R² is reported, never used to pick.
 *
 * Weighting: timing noise is multiplicative (its spread grows with the mean), so plain OLS
 * lets the largest input decide alone and cannot tell n from n·log n. By default each point
 * is weighted 1/m², m the median value at its input size (relative-error least squares);
 * RSS is then Σ wᵢrᵢ². The ½Σ ln wᵢ term of the weighted likelihood is the same for every
 * model, so it is left out of AICc: differences, which decide, are unchanged.
 * `weighting: "none"` gives plain OLS (what REFERENCE (e) describes).
 */
import { median } from "./descriptive.ts";

export const SCALING_MODELS = [
  "constant",
  "logarithmic",
  "linear",
  "n_log_n",
  "quadratic",
] as const;
export type ScalingModel = (typeof SCALING_MODELS)[number];

const BASIS: Record<ScalingModel, ((n: number) => number) | null> = {
  constant: null,
  logarithmic: (n) => Math.log(n),
  linear: (n) => n,
  n_log_n: (n) => n * Math.log(n),
  quadratic: (n) => n * n,
};

export const AICC_MARGIN = 2;

export interface ModelFit {
  model: ScalingModel;
  intercept: number;
  slope: number | null;
  intercept_se: number | null;
  slope_se: number | null;
  rss: number;
  residual_rms: number;
  r_squared: number;
  aicc: number | null;
  delta_aicc: number | null;
  durbin_watson: number | null;
}

export interface ModelSelection {
  status: "selected" | "inconclusive" | "insufficient_data";
  best_model: ScalingModel | null;
  /** AICc of the runner-up minus AICc of the best. */
  margin: number | null;
  fits: ModelFit[];
  points: number;
  distinct_inputs: number;
  supported_range: { min: number; max: number } | null;
}

export function fitModel(
  model: ScalingModel,
  xs: readonly number[],
  ys: readonly number[],
  weights?: readonly number[],
): ModelFit {
  const n = xs.length;
  const f = BASIS[model];
  const fx = xs.map((x) => (f ? f(x) : 0));
  const w = weights ?? xs.map(() => 1);
  const wSum = w.reduce((a, b) => a + b, 0);
  const yMean = ys.reduce((a, y, i) => a + w[i]! * y, 0) / wSum;
  const fMean = fx.reduce((a, v, i) => a + w[i]! * v, 0) / wSum;
  let sxx = 0;
  let sxy = 0;
  let tss = 0;
  for (let i = 0; i < n; i++) {
    sxx += w[i]! * (fx[i]! - fMean) ** 2;
    sxy += w[i]! * (fx[i]! - fMean) * (ys[i]! - yMean);
    tss += w[i]! * (ys[i]! - yMean) ** 2;
  }
  const slope = f && sxx > 0 ? sxy / sxx : null;
  const intercept = slope === null ? yMean : yMean - slope * fMean;
  const k = slope === null ? 1 : 2;
  const residuals = ys.map((y, i) => y - (intercept + (slope ?? 0) * fx[i]!));
  // Weighted residuals: with weights, RSS is Σ wᵢrᵢ² and every criterion below uses it.
  const scaled = residuals.map((r, i) => r * Math.sqrt(w[i]!));
  const rss = scaled.reduce((a, r) => a + r * r, 0);
  const sigma2 = n > k ? rss / (n - k) : NaN;
  let dwNum = 0;
  for (let i = 1; i < n; i++) dwNum += (scaled[i]! - scaled[i - 1]!) ** 2;
  const aic =
    n * Math.log(Math.max(rss, Number.MIN_VALUE) / n) + n * (Math.log(2 * Math.PI) + 1) + 2 * k;
  return {
    model,
    intercept,
    slope,
    intercept_se:
      n > k
        ? Math.sqrt(slope === null ? sigma2 / wSum : sigma2 * (1 / wSum + (fMean * fMean) / sxx))
        : null,
    slope_se: slope !== null && n > k ? Math.sqrt(sigma2 / sxx) : null,
    rss,
    residual_rms: Math.sqrt(rss / n),
    r_squared: tss > 0 ? 1 - rss / tss : 1,
    aicc: n - k - 1 > 0 ? aic + (2 * k * (k + 1)) / (n - k - 1) : null,
    delta_aicc: null,
    durbin_watson: rss > 0 ? dwNum / rss : null,
  };
}

export type Weighting = "relative" | "none";

/** Weights 1/m² per point, m the median value at the point's input; null if some m ≤ 0. */
export function relativeWeights(xs: readonly number[], ys: readonly number[]): number[] | null {
  const byInput = new Map<number, number[]>();
  xs.forEach((x, i) => byInput.set(x, [...(byInput.get(x) ?? []), ys[i]!]));
  const weightOf = new Map<number, number>();
  for (const [x, values] of byInput) {
    const m = median(values);
    if (!(m > 0)) return null;
    weightOf.set(x, 1 / (m * m));
  }
  return xs.map((x) => weightOf.get(x)!);
}

/** Fits every model to (input size, value) points and applies the AICc margin rule. */
export function selectScalingModel(
  xs: readonly number[],
  ys: readonly number[],
  options: { weighting?: Weighting } = {},
): ModelSelection & { weighting: Weighting } {
  if (xs.length !== ys.length)
    throw new RangeError(
      `Expected as many values as inputs but found ${ys.length} and ${xs.length}`,
    );
  if (xs.some((x) => !(x > 0) || !Number.isFinite(x)))
    throw new RangeError("Expected every input size to be a finite number greater than 0");
  const distinct = new Set(xs).size;
  const range = xs.length > 0 ? { min: Math.min(...xs), max: Math.max(...xs) } : null;
  if (xs.length < 3 || distinct < 2) {
    return {
      status: "insufficient_data",
      best_model: null,
      margin: null,
      fits: [],
      points: xs.length,
      distinct_inputs: distinct,
      supported_range: range,
      weighting: "none",
    };
  }
  const weights = options.weighting === "none" ? null : relativeWeights(xs, ys);
  const fits = SCALING_MODELS.map((m) => fitModel(m, xs, ys, weights ?? undefined));
  const ranked = fits.filter((f) => f.aicc !== null).sort((a, b) => a.aicc! - b.aicc!);
  const best = ranked[0];
  for (const fit of fits) fit.delta_aicc = best && fit.aicc !== null ? fit.aicc - best.aicc! : null;
  const margin = ranked.length >= 2 ? ranked[1]!.aicc! - ranked[0]!.aicc! : null;
  const selected = best !== undefined && margin !== null && margin >= AICC_MARGIN;
  return {
    status: selected ? "selected" : "inconclusive",
    best_model: selected ? best.model : null,
    margin,
    fits,
    points: xs.length,
    distinct_inputs: distinct,
    supported_range: range,
    weighting: weights ? "relative" : "none",
  };
}
