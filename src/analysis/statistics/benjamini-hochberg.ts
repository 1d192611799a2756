/**
 * Benjamini–Hochberg step-up adjusted p-values (q-values), as statsmodels'
 * multipletests(method="fdr_bh"): q₍ᵢ₎ = min over j ≥ i of min(1, m·p₍ⱼ₎/j), in input order.
 * A hypothesis is rejected at FDR level α when its q ≤ α.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1]!;
    running = Math.min(running, (m * p) / rank);
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}
