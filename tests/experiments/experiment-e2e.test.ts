/**
 * End to end through the capture service and the broker: a JS function with a deliberately
 * quadratic candidate (fixtures/experiments/dedupe, committed to git so the source identity
 * is exact) is run as a randomized complete-block experiment; every trial is a capture run
 * with environment, source and workload identities, so the paired comparison can check
 * them and must say meaningful_regression, valid, with an interval. A fast but wrong
 * candidate must be caught by its cross-treatment oracle, which invalidates its comparison.
 * A plan whose bindings drift (source edited, workload edited) is refused like a capture's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { previewComparison, recordComparison } from "../../src/application/study/comparisons.ts";
import { experimentPlans } from "../../src/application/study/experiment-protocol.ts";
import { getExperiment, listTrials } from "../../src/application/study/experiment-record.ts";
import { StudyService } from "../../src/application/study/study-service.ts";
import { readRunIdentities } from "../../src/storage/run-identities.ts";
import { allowRuntimeOnWorkloadPath, approveDeclared, git } from "../capture/capture-helpers.ts";
import { heavyTest, REPO, tempDir } from "../helpers.ts";

const FIXTURE = join(REPO, "fixtures", "experiments", "dedupe");
let dir: { path: string; cleanup: () => void };
let service: WorkspaceService;
let study: StudyService;

beforeAll(async () => {
  dir = tempDir("flameox-exp-");
  for (const f of readdirSync(FIXTURE)) cpSync(join(FIXTURE, f), join(dir.path, f));
  git(
    dir.path,
    ["init", "-q"],
    ["add", "-A"],
    ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "fixture"],
  );
  await WorkspaceService.init(dir.path);
  allowRuntimeOnWorkloadPath(dir.path);
  service = await WorkspaceService.open({ workspace: dir.path });
  study = new StudyService(service.ws);
  await approveDeclared(service);
});
afterAll(() => {
  service?.close();
  dir?.cleanup();
});

async function run(name: string) {
  const plan = await study.planExperiment({ name });
  return study.runPlannedExperiment(plan.plan_id);
}

const experimentCount = () =>
  (service.ws.control.db.query("SELECT count(*) AS n FROM experiments").get() as { n: number }).n;

describe("experiment end to end", () => {
  // Twelve trials, each a workload and an oracle process: a whole multi-trial experiment, so
  // the heavy lane's. The default lane still runs this experiment and its decision through
  // the CLI (tests/cli/experiment-cli.test.ts) and a smaller one over MCP.
  heavyTest(
    "the quadratic candidate is a meaningful regression, with an interval",
    async () => {
      const exp = await run("quadratic-regression");
      expect(exp.outcome!.counts.succeeded).toBe(12);
      expect(exp.outcome!.complete_blocks).toBe(6);
      // Protocol first, every trial registered, order shuffled within blocks from the seed.
      const trials = listTrials(service.ws, exp.experiment_id, 100, 0).items;
      expect(trials).toHaveLength(12);
      expect(new Set(trials.map((t) => t.block_id)).size).toBe(6);
      expect(getExperiment(service.ws, exp.experiment_id).protocol.randomization.seed).toBe(
        20261129,
      );
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
      console.log(
        `quadratic vs set: ${(100 * result.relative_change!).toFixed(0)}% ` +
          `[${(100 * result.confidence_low!).toFixed(0)}%, ` +
          `${(100 * result.confidence_high!).toFixed(0)}%], ${result.decision}, ` +
          `${result.validity}, mismatches ${result.mismatches.map((m) => m.code).join(",")}`,
      );
      expect(result.decision).toBe("meaningful_regression");
      expect(result.pairing).toBe("block");
      expect(result.complete_pair_n).toBe(6);
      expect(result.confidence_low!).toBeGreaterThan(0.05);
      expect(result.confidence_high!).toBeGreaterThan(result.confidence_low!);
      expect(result.wilcoxon?.method).toBe("exact");
      // Trials are capture runs: identities recorded, oracle passed, nothing to weaken the result.
      expect(result.mismatches).toEqual([]);
      expect(result.validity).toBe("valid");
      const ids = readRunIdentities(
        service.ws.control.db,
        trials.map((t) => t.run_id!),
      );
      for (const t of trials) {
        const id = ids.get(t.run_id!)!;
        expect(id).toMatchObject({
          run_type: "execution",
          execution_status: "succeeded",
          validation_status: "passed",
          source_quality: "clean",
          environment_quality: "exact",
        });
        expect(id.workload_definition_id).toBe(exp.protocol.definition.workload_definition_id);
        expect(id.workload_instance_id).toBe(
          exp.protocol.instances[`${t.variant}@-`]!.workload_instance_id,
        );
        expect(id.source_state_id).toBe(exp.protocol.capture!.source_state_id);
        expect(id.environment_id).toBe(exp.protocol.capture!.environment_id);
      }
      expect(exp.protocol.capture).toMatchObject({
        adapter: "command",
        containment: "trusted_local",
        source_quality: "clean",
      });
      // The run keeps the bound executable with its digest, as a capture does.
      const execution = service.ws.runs.executionFields(trials[0]!.run_id!) as {
        execution: { executables: { sha256: string }[] };
      };
      expect(execution.execution.executables[0]!.sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
      const recorded = await recordComparison(service.ws, request);
      expect(recorded.result_digest).toMatch(/^sha256:/);
      expect(recorded.decision).toBe(result.decision);
    },
    120_000,
  );

  test("a broken candidate is caught by its oracle and its comparison is invalid", async () => {
    const exp = await run("broken-candidate");
    const trials = listTrials(service.ws, exp.experiment_id, 100, 0).items;
    const broken = trials.filter((t) => t.variant === "candidate");
    expect(broken.every((t) => t.outcome === "oracle_failed" && t.oracle?.status === "fail")).toBe(
      true,
    );
    expect(broken[0]!.oracle!.reason).toBe("output_differs_from_reference");
    expect(
      trials.filter((t) => t.variant === "baseline").every((t) => t.outcome === "succeeded"),
    ).toBe(true);
    const result = await previewComparison(service.ws, {
      baseline_run_set_id: exp.outcome!.run_set_ids["baseline@-"]!,
      candidate_run_set_id: exp.outcome!.run_set_ids["candidate@-"]!,
      experiment_id: exp.experiment_id,
      metric: "host_time",
      polarity: "lower_is_better",
      practical_threshold: 0.05,
    });
    expect(result.validity).toBe("invalid");
    // The failing trials count as failed (not excluded: nobody chose to leave them out) and
    // are named; the oracle failure itself invalidates the comparison, and no pair is left.
    expect(result.mismatches.map((m) => m.code)).toContain("cross_treatment_validation_failed");
    expect(result.candidate).toMatchObject({ failed: 3, excluded: 0 });
    expect(result.failed_trials.map((f) => f.reason)).toEqual([
      "trial oracle_failed",
      "trial oracle_failed",
      "trial oracle_failed",
    ]);
    expect(result.decision).toBe("descriptive_only");
  }, 120_000);

  test("a replayed plan token is refused", async () => {
    const plan = await study.planExperiment({ name: "broken-candidate" });
    experimentPlans.consume(plan.plan_id);
    expect(() => experimentPlans.consume(plan.plan_id)).toThrow(/already used/);
    await expect(study.runPlannedExperiment(plan.plan_id)).rejects.toMatchObject({
      code: "PLAN_CONSUMED",
    });
  });

  test("source or workload edited after planning: the run is refused before anything is " +
    "recorded", async () => {
    const before = experimentCount();
    const source = join(dir.path, "dedupe.js");
    const original = readFileSync(source, "utf8");
    const plan = await study.planExperiment({ name: "broken-candidate" });
    appendFileSync(source, "\n// edited after planning\n");
    try {
      await expect(study.runPlannedExperiment(plan.plan_id)).rejects.toMatchObject({
        code: "SOURCE_CHANGED",
      });
    } finally {
      writeFileSync(source, original);
    }
    const toml = join(dir.path, "flameox.toml");
    const config = readFileSync(toml, "utf8");
    const replanned = await study.planExperiment({ name: "broken-candidate" });
    writeFileSync(toml, config.replace("timeout_seconds = 60", "timeout_seconds = 61"));
    try {
      await expect(study.runPlannedExperiment(replanned.plan_id)).rejects.toMatchObject({
        code: "WORKLOAD_CHANGED",
      });
    } finally {
      writeFileSync(toml, config);
    }
    expect(experimentCount()).toBe(before);
  }, 60_000);

  test("an unapproved workload is refused at planning; a plan made before its approval was " +
    "revoked runs nothing", async () => {
    const capture = await service.capture();
    const before = experimentCount();
    const plan = await study.planExperiment({ name: "broken-candidate" });
    const workload = plan.protocol.definition.workload;
    capture.revokeWorkload(workload);
    try {
      await expect(study.runPlannedExperiment(plan.plan_id)).rejects.toMatchObject({
        code: "WORKLOAD_NOT_APPROVED",
      });
      await expect(study.planExperiment({ name: "broken-candidate" })).rejects.toMatchObject({
        code: "WORKLOAD_NOT_APPROVED",
        message: expect.stringContaining(`\`flameox workload approve ${workload}\``),
      });
    } finally {
      capture.approveWorkload(workload);
    }
    expect(experimentCount()).toBe(before);
  }, 60_000);

  test("approval is rechecked before every trial: revoked mid-experiment, the next trial does " +
    "not start", async () => {
    const capture = await service.capture();
    const plan = await study.planExperiment({ name: "broken-candidate" });
    const workload = plan.protocol.definition.workload;
    try {
      const exp = await study.runPlannedExperiment(plan.plan_id, {
        onProgress: (done) => done === 1 && capture.revokeWorkload(workload),
      });
      expect(exp).toMatchObject({
        status: "stopped",
        outcome: { stopped: "WORKLOAD_NOT_APPROVED" },
      });
      const trials = listTrials(service.ws, exp.experiment_id, 100, 0).items;
      expect(trials.filter((t) => t.run_id !== null)).toHaveLength(1);
      expect(trials[1]).toMatchObject({
        outcome: "unattempted",
        failure_class: "WORKLOAD_NOT_APPROVED",
        run_id: null,
      });
    } finally {
      capture.approveWorkload(workload);
    }
  }, 60_000);
});

describe("scaling experiment end to end", () => {
  heavyTest(
    "the quadratic implementation grows faster than the Set one",
    async () => {
      const { scalingOfExperiment } = await import("../../src/application/study/scaling.ts");
      const exp = await run("dedupe-scaling");
      expect(exp.outcome!.counts.succeeded).toBe(20);
      const result = await scalingOfExperiment(service.ws, exp.experiment_id);
      for (const v of result.variants)
        console.log(
          `${v.variant}: ${v.selection.status} ${v.selection.best_model ?? ""} ` +
            `margin ${v.selection.margin?.toFixed(1)}; ` +
            `${v.points.map((p) => `${p.input}:${(p.median / 1e3).toFixed(0)}µs`).join(" ")}`,
        );
      const quadratic = result.variants.find((v) => v.variant === "quadratic")!;
      expect(quadratic.points).toHaveLength(5);
      expect(["quadratic", "n_log_n"]).toContain(
        quadratic.selection.fits.sort((a, b) => a.aicc! - b.aicc!)[0]!.model,
      );
      expect(result.frame_correlations).toEqual({
        status: "unavailable",
        reason: expect.stringContaining("no profile evidence"),
      });
    },
    120_000,
  );

  heavyTest(
    "profiled trials: the quadratic implementation's own frame is flagged as growing with input",
    async () => {
      const { scalingOfExperiment } = await import("../../src/application/study/scaling.ts");
      const exp = await run("dedupe-scaling-profiled");
      expect(exp.protocol.capture).toMatchObject({ adapter: "v8-cpu" });
      expect(exp.outcome!.counts.succeeded).toBe(20);
      const result = await scalingOfExperiment(service.ws, exp.experiment_id);
      const fc = result.frame_correlations;
      if (fc.status === "unavailable") throw new Error(fc.reason);
      // On a loaded machine a trial's profile can come back empty; the result then says
      // `partial` and leaves that trial out, which is what is checked besides the flagging.
      expect(fc).toMatchObject({ metric: "cpu_time" });
      expect(["available", "partial"]).toContain(fc.status);
      expect(fc.profiled_trials + fc.unprofiled_trials).toBe(20);
      expect(fc.profiled_trials).toBeGreaterThanOrEqual(16);
      for (const v of fc.variants)
        console.log(
          `${v.variant}: ${v.flagged} of ${v.family_size} frames flagged; top ${v.frames
            .slice(0, 3)
            .map((f) => `${f.function} ρ=${f.rho.toFixed(2)} q=${f.q_value.toExponential(1)}`)
            .join(", ")}`,
        );
      const quadratic = fc.variants.find((v) => v.variant === "quadratic")!;
      const flagged = quadratic.frames.filter((f) => f.grows_with_input).map((f) => f.function);
      // JSC may inline Array.prototype.includes into the loop or keep it as its own frame.
      expect(flagged.some((name) => name === "dedupeQuadratic" || name === "includes")).toBe(true);
      expect(
        quadratic.frames
          .filter((f) => f.grows_with_input)
          .every((f) => f.q_value < 0.05 && f.rho > 0),
      ).toBe(true);
    },
    240_000,
  );
});
