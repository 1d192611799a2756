/**
 * Order statistics used by the comparison and scaling recipes. Medians follow NumPy's
 * definition (mean of the two middle values for an even count), and quantiles NumPy's
 * default "linear" method (Hyndman & Fan type 7), so results line up with scipy/numpy
 * references bit for bit where the arithmetic is the same.
 */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values as ArrayLike<number>).sort();
}

/** Median of an already sorted array. */
export function medianOfSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function median(values: ArrayLike<number>): number {
  return medianOfSorted(sortedCopy(values));
}

/** Linear-interpolation quantile (type 7) of a sorted array, p in [0, 1]. */
export function quantileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0 || !(p >= 0 && p <= 1)) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const frac = h - lo;
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  // NumPy's _lerp: a + (b − a)·t, switching to b − (b − a)·(1 − t) for t ≥ 0.5 (keeps
  // monotonicity).
  const diff = b - a;
  return frac >= 0.5 ? b - diff * (1 - frac) : a + diff * frac;
}

/** Median absolute deviation (unscaled). */
export function mad(values: ArrayLike<number>, center = median(values)): number {
  const dev = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) dev[i] = Math.abs(values[i]! - center);
  return median(dev);
}

export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}
