/**
 * Statistics benchmark. Prints, as medians of repeated runs:
 * - a paired comparison of 30 pairs with 9,999 BCa resamples (estimate, interval,
 *   decision, Wilcoxon, outliers), the work `analyze compare` does after reading samples;
 * - scaling over 5 sizes × 10 blocks: per-size medians with 1,999-resample BCa intervals
 *   plus the five least-squares fits and AICc selection.
 * Figures, not assertions. Run: bun run bench/stats-bench.ts
 */
import { bcaMedianInterval } from "../src/analysis/statistics/bootstrap-bca.ts";
import { comparePaired } from "../src/analysis/statistics/paired-log-ratio.ts";
import { SeededRandom } from "../src/analysis/statistics/prng.ts";
import { selectScalingModel } from "../src/analysis/statistics/scaling-fit.ts";

function timeIt(label: string, reps: number, fn: () => void): void {
  fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${label}: median ${times[reps >> 1]!.toFixed(2)} ms (min ${times[0]!.toFixed(2)}, ` +
      `max ${times[reps - 1]!.toFixed(2)}) over ${reps} runs`,
  );
}

const rng = new SeededRandom(1);
const pairs = Array.from({ length: 30 }, (_, i) => ({
  block_id: `b${i}`,
  baseline: Math.exp(0.1 * rng.nextNormal()),
  candidate: 1.1 * Math.exp(0.1 * rng.nextNormal()),
}));
timeIt("comparison, 30 pairs, 9,999 resamples", 30, () => {
  comparePaired(pairs, { threshold: 0.05, polarity: "lower_is_better", seed: 0, resamples: 9_999 });
});

const sizes = [100, 316, 1000, 3162, 10000];
const xs: number[] = [];
const ys: number[] = [];
for (const n of sizes)
  for (let b = 0; b < 10; b++) {
    xs.push(n);
    ys.push(n * Math.log(n) * Math.exp(0.1 * rng.nextNormal()));
  }
timeIt("scaling, 5 sizes x 10 blocks (5 BCa intervals at 1,999 + 5 fits)", 30, () => {
  for (const n of sizes)
    bcaMedianInterval(
      ys.filter((_, i) => xs[i] === n),
      { resamples: 1_999, seed: 0 },
    );
  selectScalingModel(xs, ys);
});
