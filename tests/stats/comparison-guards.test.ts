/**
 * Guards that keep a comparison from claiming more than its data support: the confirmatory
 * minimum follows from the confidence level; failed trials are failed (not excluded) and a
 * decision is refused when too few complete pairs remain; a run set is never compared with
 * itself; an undefined interval is inconclusive with its reason; every pair is in the JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { StudyService } from "../../src/application/study/study-service.ts";
import {
  minimumPairsFor,
  orderStatisticMedianInterval,
  signCoverage,
} from "../../src/analysis/statistics/order-statistic-interval.ts";
import {
  comparePaired,
  ORDER_STATISTIC_BELOW,
} from "../../src/analysis/statistics/paired-log-ratio.ts";
import { CORPUS, cli, tempWorkspace } from "../helpers.ts";

const shifted = (n: number, factor: number) =>
  Array.from({ length: n }, (_, i) => ({
    block_id: `b${i}`,
    baseline: 10 + (i % 3) * 0.1,
    candidate: (10 + (i % 3) * 0.1) * factor * (1 + 0.001 * i),
  }));

describe("confirmatory minimum", () => {
  test("follows from the confidence level: [min, max] of n values must reach it", () => {
    expect(minimumPairsFor(0.95)).toBe(6);
    expect(minimumPairsFor(0.9)).toBe(5);
    expect(minimumPairsFor(0.99)).toBe(8);
    // 1 − 2·½⁵ = 93.75% < 95% ≤ 96.875% = 1 − 2·½⁶
    expect(signCoverage(5, 1)).toBe(0.9375);
    expect(signCoverage(6, 1)).toBe(0.96875);
    expect(signCoverage(10, 2)).toBeCloseTo(1 - (2 * 11) / 1024, 15);
  });

  test("three to five clear pairs are descriptive only; six decide", () => {
    for (const n of [3, 4, 5]) {
      const r = comparePaired(shifted(n, 1.3), { threshold: 0.05, polarity: "lower_is_better" });
      expect([n, r.decision, r.exploratory, r.confidence_low, r.minimum_pairs]).toEqual([
        n,
        "descriptive_only",
        true,
        null,
        6,
      ]);
      expect(r.relative_change).toBeGreaterThan(0.29);
    }
    const six = comparePaired(shifted(6, 1.3), { threshold: 0.05, polarity: "lower_is_better" });
    expect([six.decision, six.exploratory]).toEqual(["meaningful_regression", false]);
    // At 90% five pairs are enough.
    expect(
      comparePaired(shifted(5, 1.3), {
        threshold: 0.05,
        polarity: "lower_is_better",
        confidenceLevel: 0.9,
      }).decision,
    ).toBe("meaningful_regression");
  });
});

describe("order-statistic interval", () => {
  test(
    "Hettmansperger–Sheather bounds at n = 6 and 10 (interpolation weights worked by " + "hand)",
    () => {
      const six = orderStatisticMedianInterval([1, 2, 3, 4, 5, 6], 0.95);
      // k = 1: γ₁ = 0.96875, γ₂ = 0.78125, I = 0.1, λ = 5·0.1 / (1 + 4·0.1)
      const lambda = 0.5 / 1.4;
      expect(six.rank).toBe(1);
      expect(six.interpolation!).toBeCloseTo(lambda, 14);
      expect(six.low!).toBeCloseTo(1 + lambda, 14);
      expect(six.high!).toBeCloseTo(6 - lambda, 14);
      const ten = orderStatisticMedianInterval([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95);
      expect(ten.rank).toBe(2);
      expect(ten.coverage_bracket![1]).toBeGreaterThanOrEqual(0.95);
      expect(ten.coverage_bracket![0]).toBeLessThan(0.95);
      expect(ten.low!).toBeGreaterThan(2);
      expect(ten.low!).toBeLessThan(3);
    },
  );
});

describe("undefined intervals are inconclusive, with the reason", () => {
  test("quantized ties that pin the interval to one value decide nothing (small n)", () => {
    // 1 ms-quantized timings of a true +8% change: most pairs read 12 → 13 ms.
    const pairs = Array.from({ length: 10 }, (_, i) => ({
      block_id: `b${i}`,
      baseline: 12,
      candidate: i === 0 ? 12 : 13,
    }));
    const r = comparePaired(pairs, { threshold: 0.05, polarity: "lower_is_better" });
    expect(r.decision).toBe("inconclusive");
    expect([r.confidence_low, r.confidence_high]).toEqual([null, null]);
    expect(r.interval_note).toContain("zero width");
  });

  test(
    "BCa with degenerate acceleration (scipy: NaN) is inconclusive, not a zero-width " + "interval",
    () => {
      const n = ORDER_STATISTIC_BELOW + 10;
      const pairs = Array.from({ length: n }, (_, i) => ({
        block_id: `b${i}`,
        baseline: 12,
        candidate: i < 3 ? 12 : i > n - 3 ? 14 : 13,
      }));
      const r = comparePaired(pairs, {
        threshold: 0.05,
        polarity: "lower_is_better",
        resamples: 999,
      });
      expect(r.method).toContain("bca");
      expect(r.decision).toBe("inconclusive");
      expect(r.confidence_low).toBeNull();
      expect(r.interval_note).toMatch(/BCa interval undefined: .*(0\/0|one side)/);
    },
  );

  test("the per-pair values are part of the result", () => {
    const r = comparePaired(
      [...shifted(6, 1.1), { block_id: "dead", baseline: 10, candidate: NaN }],
      { threshold: 0.05, polarity: "lower_is_better" },
    );
    expect(r.pairs).toHaveLength(7);
    expect(r.pairs[0]).toEqual({
      block_id: "b0",
      baseline: 10,
      candidate: 10 * 1.1,
      log_ratio: Math.log(1.1),
    });
    expect(r.pairs[6]).toEqual({
      block_id: "dead",
      baseline: 10,
      candidate: null,
      log_ratio: null,
    });
  });
});

/** A hyperfine result with one command whose runs take `seconds`. */
function hyperfine(dir: string, name: string, seconds: number[]): string {
  const path = join(dir, name);
  const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
  writeFileSync(
    path,
    JSON.stringify({
      results: [
        {
          command: "work",
          mean,
          stddev: 0,
          median: mean,
          user: 0,
          system: 0,
          min: Math.min(...seconds),
          max: Math.max(...seconds),
          times: seconds,
          exit_codes: seconds.map(() => 0),
        },
      ],
    }),
  );
  return path;
}

describe("run-set comparisons", () => {
  let ws: { root: string; cleanup: () => void };
  let service: WorkspaceService;
  let study: StudyService;
  const base: string[] = [];
  const cand: string[] = [];
  beforeAll(async () => {
    ws = await tempWorkspace();
    service = await WorkspaceService.open({ workspace: ws.root });
    study = new StudyService(service.ws);
    for (let i = 0; i < 8; i++) {
      base.push(
        (
          await service.importArtifact({
            path: hyperfine(ws.root, `b${i}.json`, [0.01 + i * 1e-5, 0.0101 + i * 1e-5]),
          })
        ).run_id,
      );
      cand.push(
        (
          await service.importArtifact({
            path: hyperfine(ws.root, `c${i}.json`, [0.007 + i * 1e-5, 0.0071 + i * 1e-5]),
          })
        ).run_id,
      );
    }
  }, 120_000);
  afterAll(() => {
    service?.close();
    ws?.cleanup();
  });
  const request = (a: string, b: string) => ({
    baseline_run_set_id: a,
    candidate_run_set_id: b,
    metric: "wall_time",
    polarity: "lower_is_better" as const,
    practical_threshold: 0.05,
  });
  const members = (runs: string[], failedBlocks: number[] = []) =>
    runs.map((run_id, i) => ({
      run_id,
      block_id: `block-${i}`,
      included: !failedBlocks.includes(i),
      reason: failedBlocks.includes(i) ? (i % 2 ? "trial timed_out" : "trial failed") : null,
    }));

  test(
    "a candidate that crashed in 3 of 8 blocks: failed (not excluded), named, and no " + "decision",
    async () => {
      const a = study.freezeRunSet({ members: members(base) });
      const b = study.freezeRunSet({ members: members(cand, [1, 4, 6]) });
      const r = await study.compare(request(a.run_set_id, b.run_set_id));
      expect(r.candidate).toMatchObject({ attempted: 8, failed: 3, excluded: 0 });
      expect(r.complete_pair_n).toBe(5);
      expect(r.decision).toBe("descriptive_only");
      expect(r.failed_trials.map((f) => [f.side, f.block_id, f.reason])).toEqual([
        ["candidate", "block-1", "trial timed_out"],
        ["candidate", "block-4", "trial failed"],
        ["candidate", "block-6", "trial failed"],
      ]);
      const codes = r.limitations.map((l) => l.code);
      expect(codes).toContain("failed_trials");
      expect(codes).toContain("below_confirmatory_minimum");
      expect(r.pairs.map((p) => p.block_id)).toEqual([
        "block-0",
        "block-2",
        "block-3",
        "block-5",
        "block-7",
      ]);
    },
  );

  test(
    "with every block complete the same data decide, and the JSON carries each " + "pair",
    async () => {
      const a = study.freezeRunSet({ members: members(base) });
      const b = study.freezeRunSet({ members: members(cand) });
      const r = await study.compare(request(a.run_set_id, b.run_set_id));
      expect([r.complete_pair_n, r.decision, r.failed_trials]).toEqual([
        8,
        "meaningful_improvement",
        [],
      ]);
      expect(r.pairs).toHaveLength(8);
      for (const p of r.pairs)
        expect(p.log_ratio!).toBeCloseTo(Math.log(p.candidate! / p.baseline!), 12);
    },
  );

  test("two commands of one hyperfine file compare directly; pooling its benchmarks without a " +
    "scope is refused", async () => {
    const file = join(CORPUS, "hyperfine", "3em-tools-benchmarks-results.json");
    const run = (await service.importArtifact({ path: file })).run_id;
    const r = await study.compareScopes({
      run_id: run,
      baseline_scope: "../../target/release/bench",
      candidate_scope: "../../target/release/bench_wasm",
      metric: "wall_time",
      polarity: "lower_is_better",
      practical_threshold: 0.05,
    });
    expect(r.pairing).toBe("sample_hierarchy");
    expect(r.complete_pair_n).toBe(20);
    expect(r.limitations.map((l) => l.code)).toEqual(
      expect.arrayContaining(["within_run_pairing", "same_run_scopes"]),
    );
    const doc = JSON.parse(await Bun.file(file).text()) as {
      results: { command: string; times: number[] }[];
    };
    const times = (command: string) => doc.results.find((x) => x.command === command)!.times;
    expect(r.pairs.map((p) => p.baseline)).toEqual(
      times("../../target/release/bench").map((t) => Math.round(t * 1e9)),
    );
    expect(r.pairs.map((p) => p.candidate)).toEqual(
      times("../../target/release/bench_wasm").map((t) => Math.round(t * 1e9)),
    );
    const set = study.freezeRunSet({ run_ids: [run] });
    const other = study.freezeRunSet({
      run_ids: [(await service.importArtifact({ path: file })).run_id],
    });
    await expect(study.compare(request(set.run_set_id, other.run_set_id))).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { field: "scope" },
      message: expect.stringContaining("span 5 benchmarks"),
    });
    await expect(
      study.compareScopes({
        run_id: run,
        baseline_scope: "x",
        candidate_scope: "x",
        metric: "wall_time",
        polarity: "lower_is_better",
        practical_threshold: 0.05,
      }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    const viaCli = await cli(
      [
        "analyze",
        "compare",
        "--run",
        run,
        "--baseline-scope",
        "../../target/release/bench",
        "--candidate-scope",
        "../../target/release/bench_wasm",
        "--json",
      ],
      { cwd: ws.root },
    );
    expect([viaCli.code, viaCli.json?.complete_pair_n]).toEqual([0, 20]);
  }, 120_000);

  test(
    "a run set compared with itself, or with the same runs frozen again, is " + "refused",
    async () => {
      const a = study.freezeRunSet({ members: members(base) });
      const again = study.freezeRunSet({ members: members(base) });
      await expect(study.compare(request(a.run_set_id, a.run_set_id))).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
      });
      await expect(study.compare(request(a.run_set_id, again.run_set_id))).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
        message: expect.stringContaining("same runs"),
      });
    },
  );
});
