/**
 * End to end through the broker: a JS function with a deliberately quadratic candidate
 * (fixtures/experiments/dedupe) is run as a randomized complete-block experiment; the
 * paired comparison must say meaningful_regression with an interval. A fast but wrong
 * candidate must be caught by its cross-treatment oracle, which invalidates its comparison.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { BrokerTrialExecutor } from "../../src/application/study/broker-trial-executor.ts";
import { previewComparison, recordComparison } from "../../src/application/study/comparisons.ts";
import { experimentPlans, planExperiment } from "../../src/application/study/experiment-protocol.ts";
import { getExperiment, listTrials } from "../../src/application/study/experiment-record.ts";
import { runExperiment } from "../../src/application/study/run-experiment.ts";
import { REPO, tempDir } from "../helpers.ts";

const FIXTURE = join(REPO, "fixtures", "experiments", "dedupe");
let dir: { path: string; cleanup: () => void };
let service: WorkspaceService;

beforeAll(async () => {
  dir = tempDir("flameox-exp-");
  for (const f of readdirSync(FIXTURE)) cpSync(join(FIXTURE, f), join(dir.path, f));
  await WorkspaceService.init(dir.path);
  service = await WorkspaceService.open({ workspace: dir.path });
});
afterAll(() => {
  service?.close();
  dir?.cleanup();
});

async function run(name: string) {
  const plan = planExperiment(dir.path, { name });
  const protocol = experimentPlans.consume(plan.plan_id);
  return runExperiment(service.ws, protocol, new BrokerTrialExecutor());
}

describe("experiment end to end", () => {
  test("the quadratic candidate is a meaningful regression, with an interval", async () => {
    const exp = await run("quadratic-regression");
    expect(exp.outcome!.counts.succeeded).toBe(10);
    expect(exp.outcome!.complete_blocks).toBe(5);
    // Protocol first, every trial registered, order shuffled within blocks from the seed.
    const trials = listTrials(service.ws, exp.experiment_id, 100, 0).items;
    expect(trials).toHaveLength(10);
    expect(new Set(trials.map((t) => t.block_id)).size).toBe(5);
    expect(getExperiment(service.ws, exp.experiment_id).protocol.randomization.seed).toBe(20261129);
    const request = {
      baseline_run_set_id: exp.outcome!.run_set_ids["baseline@-"]!,
      candidate_run_set_id: exp.outcome!.run_set_ids["candidate@-"]!,
      experiment_id: exp.experiment_id,
      metric: "host_time",
      polarity: "lower_is_better" as const,
      practical_threshold: 0.05,
      random_seed: 1,
    };
    const result = await previewComparison(service.ws, request);
    console.log(`quadratic vs set: ${(100 * result.relative_change!).toFixed(0)}% [${(100 * result.confidence_low!).toFixed(0)}%, ${(100 * result.confidence_high!).toFixed(0)}%], ${result.decision}, ${result.validity}, mismatches ${result.mismatches.map((m) => m.code).join(",")}`);
    expect(result.decision).toBe("meaningful_regression");
    expect(result.pairing).toBe("block");
    expect(result.complete_pair_n).toBe(5);
    expect(result.confidence_low!).toBeGreaterThan(0.05);
    expect(result.wilcoxon?.method).toBe("exact");
    expect(result.mismatches.map((m) => m.code)).not.toContain("cross_treatment_validation_failed");
    expect(result.validity).not.toBe("invalid");
    const recorded = await recordComparison(service.ws, request);
    expect(recorded.result_digest).toMatch(/^sha256:/);
    expect(recorded.decision).toBe(result.decision);
  }, 120_000);

  test("a broken candidate is caught by its oracle and its comparison is invalid", async () => {
    const exp = await run("broken-candidate");
    const trials = listTrials(service.ws, exp.experiment_id, 100, 0).items;
    const broken = trials.filter((t) => t.variant === "candidate");
    expect(broken.every((t) => t.outcome === "oracle_failed" && t.oracle?.status === "fail")).toBe(true);
    expect(broken[0]!.oracle!.reason).toBe("output_differs_from_reference");
    expect(trials.filter((t) => t.variant === "baseline").every((t) => t.outcome === "succeeded")).toBe(true);
    const result = await previewComparison(service.ws, {
      baseline_run_set_id: exp.outcome!.run_set_ids["baseline@-"]!,
      candidate_run_set_id: exp.outcome!.run_set_ids["candidate@-"]!,
      experiment_id: exp.experiment_id,
      metric: "host_time",
      polarity: "lower_is_better",
      practical_threshold: 0.05,
    });
    expect(result.validity).toBe("invalid");
    // The failing trials are excluded members (kept and counted, never silently dropped);
    // the oracle failure itself invalidates the comparison.
    expect(result.mismatches.map((m) => m.code)).toContain("cross_treatment_validation_failed");
    expect(result.candidate.excluded).toBe(3);
  }, 120_000);

  test("a replayed plan token is refused", () => {
    const plan = planExperiment(dir.path, { name: "broken-candidate" });
    experimentPlans.consume(plan.plan_id);
    expect(() => experimentPlans.consume(plan.plan_id)).toThrow(/already used/);
  });
});

describe("scaling experiment end to end", () => {
  test("the quadratic implementation grows faster than the Set one", async () => {
    const { scalingOfExperiment } = await import("../../src/application/study/scaling.ts");
    const exp = await run("dedupe-scaling");
    expect(exp.outcome!.counts.succeeded).toBe(20);
    const result = await scalingOfExperiment(service.ws, exp.experiment_id);
    for (const v of result.variants) console.log(`${v.variant}: ${v.selection.status} ${v.selection.best_model ?? ""} margin ${v.selection.margin?.toFixed(1)}; ${v.points.map((p) => `${p.input}:${(p.median / 1e3).toFixed(0)}µs`).join(" ")}`);
    const quadratic = result.variants.find((v) => v.variant === "quadratic")!;
    expect(quadratic.points).toHaveLength(5);
    expect(["quadratic", "n_log_n"]).toContain(quadratic.selection.fits.sort((a, b) => a.aicc! - b.aicc!)[0]!.model);
    expect(result.frame_correlations.status).toBe("unavailable");
  }, 120_000);
});
