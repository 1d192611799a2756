/**
 * Calibration of the comparison interval by simulation, printed with Monte-Carlo errors:
 *   bun bench/stats-calibration.ts [experiments=10000]
 *
 * Per case, seeded experiments of n pairs with log-normal run noise (σ = 0.1 on the log
 * scale, independent per run, so the paired log ratio is symmetric):
 *   A/A          no true difference — the 95% interval should exclude 0 in 5% of them;
 *   +10% shift   candidate 10% slower — the interval should cover +10% in 95% of them.
 * n = 6, 10, 30 use the order-statistic interval (below ORDER_STATISTIC_BELOW pairs), 60
 * the BCa bootstrap (1,999 resamples, fewer experiments: it resamples). The target is
 * 5% ± 1.4% and 95% ± 1.4%; each line says whether the rate is inside it.
 */
import {
  comparePaired,
  ORDER_STATISTIC_BELOW,
} from "../src/analysis/statistics/paired-log-ratio.ts";
import { SeededRandom } from "../src/analysis/statistics/prng.ts";

export interface CalibrationCase {
  pairs: number;
  shift: number;
  experiments: number;
  seed: number;
  resamples?: number;
}
export interface CalibrationResult extends CalibrationCase {
  rate: number;
  mcError: number;
  method: string;
}

const SIGMA = 0.1;

/**
 * A/A (shift 0): the rate at which the interval excludes 0; otherwise the rate at which it covers
 * the shift.
 */
export function calibrate(c: CalibrationCase): CalibrationResult {
  const rng = new SeededRandom(c.seed);
  let hits = 0;
  let method = "";
  for (let e = 0; e < c.experiments; e++) {
    const data = Array.from({ length: c.pairs }, (_, i) => ({
      block_id: String(i),
      baseline: Math.exp(SIGMA * rng.nextNormal()),
      candidate: (1 + c.shift) * Math.exp(SIGMA * rng.nextNormal()),
    }));
    const r = comparePaired(data, {
      threshold: 0.05,
      polarity: "lower_is_better",
      seed: e,
      resamples: c.resamples ?? 1_999,
    });
    method = r.method;
    const [low, high] = [r.confidence_low!, r.confidence_high!];
    if (c.shift === 0 ? low > 0 || high < 0 : low <= c.shift && c.shift <= high) hits++;
  }
  const rate = hits / c.experiments;
  return { ...c, rate, mcError: Math.sqrt((rate * (1 - rate)) / c.experiments), method };
}

if (import.meta.main) {
  const experiments = Number(process.argv[2] ?? 10_000);
  const cases: CalibrationCase[] = [6, 10, 30, 60].flatMap((pairs) => {
    const count =
      pairs >= ORDER_STATISTIC_BELOW ? Math.max(200, Math.floor(experiments / 5)) : experiments;
    return [
      { pairs, shift: 0, experiments: count, seed: 1000 + pairs },
      { pairs, shift: 0.1, experiments: count, seed: 2000 + pairs },
    ];
  });
  console.log("case          pairs  experiments  rate     MC error  target        inside  method");
  for (const c of cases) {
    const started = performance.now();
    const r = calibrate(c);
    const target = c.shift === 0 ? 0.05 : 0.95;
    const inside = Math.abs(r.rate - target) <= 0.014;
    console.log(
      `${c.shift === 0 ? "A/A excl. 0 " : "+10% covered"}  ${String(c.pairs).padStart(5)}  ` +
        `${String(c.experiments).padStart(11)}  ${(100 * r.rate).toFixed(2).padStart(6)}%  ` +
        `±${(100 * r.mcError).toFixed(2)}%    ${(100 * target).toFixed(0)}% ± ` +
        `1.4%   ${inside ? "yes" : "NO"}     ${r.method} ` +
        `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
}
