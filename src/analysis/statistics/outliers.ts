/**
 * Outlier flags by the modified z-score of Iglewicz & Hoaglin (1993):
 * Mᵢ = 0.6745·(xᵢ − median)/MAD, flagged when |Mᵢ| > 3.5. Flagged values are reported,
 * never dropped: the estimate is a median already, and removing data would make the
 * interval look tighter than the evidence allows.
 */
import { mad, median } from "./descriptive.ts";

export const MODIFIED_Z_THRESHOLD = 3.5;

export interface OutlierFlags {
  median: number;
  mad: number;
  /** Indices into the input whose |modified z| exceeds the threshold. */
  flagged: number[];
  threshold: number;
  /** MAD = 0 (over half the values equal): no scale, so nothing is flagged. */
  scale_unavailable: boolean;
}

export function madOutliers(
  values: ArrayLike<number>,
  threshold = MODIFIED_Z_THRESHOLD,
): OutlierFlags {
  const center = median(values);
  const scale = mad(values, center);
  if (!(scale > 0))
    return { median: center, mad: scale || 0, flagged: [], threshold, scale_unavailable: true };
  const flagged: number[] = [];
  for (let i = 0; i < values.length; i++)
    if (Math.abs((0.6745 * (values[i]! - center)) / scale) > threshold) flagged.push(i);
  return { median: center, mad: scale, flagged, threshold, scale_unavailable: false };
}
