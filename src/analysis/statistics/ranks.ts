/** Average ranks (1-based; ties share the mean of their ranks) and tie group sizes. */
export function averageRanks(values: ArrayLike<number>): {
  ranks: Float64Array;
  tieSizes: number[];
} {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Float64Array(n);
  const tieSizes: number[] = [];
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const rank = (i + j + 2) / 2;
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank;
    tieSizes.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, tieSizes };
}
