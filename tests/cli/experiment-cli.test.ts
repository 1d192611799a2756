/**
 * `flameox experiment plan|run|show|trials`, `analyze compare` and `analyze scaling` as a
 * user or agent runs them: separate CLI processes in a temp git project holding the
 * dedupe fixture. Every --json output must be accepted by the result schema the MCP tool
 * of the same use case declares, since both print one result model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type } from "arktype";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ComparisonResultSchema,
  ExperimentPlanResult,
  ExperimentResult,
  ScalingResultSchema,
  TrialPageResult,
} from "../../src/mcp/schemas/study.ts";
import { allowRuntimeOnWorkloadPath, git } from "../capture/capture-helpers.ts";
import { cli, heavyTest, REPO, tempDir } from "../helpers.ts";

const FIXTURE = join(REPO, "fixtures", "experiments", "dedupe");
// A smaller scaling design than the fixture's, to keep the test short: 4 sizes, 1 block.
const SCALING = `
[experiments.cli-scaling]
workload = "dedupe"
variants = { set = { impl = "set" }, quadratic = { impl = "quadratic" } }
blocks = 1
scaling_parameter = "size"
scaling_values = [500, 1000, 2000, 4000]
primary_metric = "host_time"
polarity = "lower_is_better"
practical_threshold = 0.05
random_seed = 3
`;

let dir: { path: string; cleanup: () => void };
const run = (args: string[]) => cli([...args, "--json"], { cwd: dir.path });

/** The value, after checking it against a declared result schema (its error summary on failure). */
function conforms(schema: type.Any, value: unknown): void {
  const checked = schema(value);
  expect(checked instanceof type.errors ? checked.summary : "ok").toBe("ok");
}

beforeAll(async () => {
  dir = tempDir("flameox-exp-cli-");
  for (const f of readdirSync(FIXTURE)) cpSync(join(FIXTURE, f), join(dir.path, f));
  writeFileSync(
    join(dir.path, "flameox.toml"),
    readFileSync(join(dir.path, "flameox.toml"), "utf8") + SCALING,
  );
  git(
    dir.path,
    ["init", "-q"],
    ["add", "-A"],
    ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "fixture"],
  );
  const init = await cli(["init", dir.path, "--json"], { cwd: dir.path });
  if (init.code !== 0) throw new Error(`init failed: ${init.stdout}${init.stderr}`);
  // The workload runs bun, which is outside the system directories a workload's PATH holds by
  // default.
  allowRuntimeOnWorkloadPath(dir.path);
  const approved = await cli(["workload", "approve", "dedupe", "--yes", "--json"], {
    cwd: dir.path,
  });
  if (approved.code !== 0) throw new Error(`approve failed: ${approved.stdout}${approved.stderr}`);
}, 60_000);
afterAll(() => dir?.cleanup());

describe("experiment CLI end to end", () => {
  test("an experiment of a workload whose approval was revoked is refused (exit 9) until it is " +
    "approved again", async () => {
    expect((await run(["workload", "revoke", "dedupe"])).json).toMatchObject({
      revoked: 1,
      approval: { state: "unapproved" },
    });
    const refused = await run(["experiment", "plan", "quadratic-regression"]);
    expect(refused.code).toBe(9);
    expect(refused.json.error).toMatchObject({ code: "WORKLOAD_NOT_APPROVED" });
    expect(refused.json.error.message).toContain("`flameox workload approve dedupe`");
    const ranUnapproved = await run(["experiment", "run", "quadratic-regression"]);
    expect(ranUnapproved.json.error.code).toBe("WORKLOAD_NOT_APPROVED");
    expect((await run(["workload", "approve", "dedupe", "--yes"])).json).toMatchObject({
      outcome: "approved",
      approval: { state: "approved" },
    });
    expect((await run(["runs", "list"])).json.total).toBe(0);
  }, 60_000);

  test("plan shows the randomized protocol and its capture binding, and runs nothing", async () => {
    const plan = await run(["experiment", "plan", "quadratic-regression"]);
    expect(plan.code).toBe(0);
    conforms(ExperimentPlanResult, plan.json);
    expect(plan.json).toMatchObject({
      trials_planned: 12,
      protocol: {
        name: "quadratic-regression",
        randomization: { seed: 20261129 },
        capture: { adapter: "command", source_quality: "clean" },
      },
    });
    expect(plan.json.plan_id).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.stdout).not.toContain(dir.path);
    const runs = await run(["runs", "list"]);
    expect(runs.json.total).toBe(0);
  });

  test("run, show, trials and a valid comparison of the quadratic candidate", async () => {
    const ran = await run(["experiment", "run", "quadratic-regression"]);
    expect(ran.code).toBe(0);
    conforms(ExperimentResult, ran.json);
    expect(ran.json).toMatchObject({
      status: "completed",
      outcome: { attempted: 12, complete_blocks: 6, counts: { succeeded: 12 } },
    });
    const id = ran.json.experiment_id;

    const shown = await run(["experiment", "show", id]);
    expect(shown.code).toBe(0);
    conforms(ExperimentResult, shown.json);
    expect(shown.json.outcome).toEqual(ran.json.outcome);

    const trials = await run(["experiment", "trials", id, "--limit", "4"]);
    expect(trials.code).toBe(0);
    conforms(TrialPageResult, trials.json);
    expect(trials.json).toMatchObject({ total: 12, returned: 4, truncated: true });
    expect(trials.json.items[0]).toMatchObject({
      outcome: "succeeded",
      oracle: { status: "pass", strength: "cross_treatment_equivalence" },
    });

    const request = join(dir.path, "compare.json");
    writeFileSync(
      request,
      JSON.stringify({
        baseline_run_set_id: ran.json.outcome.run_set_ids["baseline@-"],
        candidate_run_set_id: ran.json.outcome.run_set_ids["candidate@-"],
        experiment_id: id,
        metric: "host_time",
        polarity: "lower_is_better",
        practical_threshold: 0.05,
      }),
    );
    const compared = await run(["analyze", "compare", `@${request}`]);
    expect(compared.code).toBe(0);
    conforms(ComparisonResultSchema, compared.json);
    // The trials time real processes: a failure shows each block's pair, to tell a slow machine
    // from a wrong decision.
    if (compared.json.decision !== "meaningful_regression")
      console.error("pairs:", JSON.stringify(compared.json.pairs ?? compared.json));
    expect(compared.json).toMatchObject({
      decision: "meaningful_regression",
      validity: "valid",
      complete_pair_n: 6,
      mismatches: [],
    });
    expect(compared.json.confidence_low).toBeGreaterThan(0.05);
  }, 120_000);

  heavyTest(
    "analyze scaling over a scaling experiment",
    async () => {
      const ran = await run(["experiment", "run", "cli-scaling"]);
      expect(ran.code).toBe(0);
      expect(ran.json.outcome.counts.succeeded).toBe(8);
      const scaling = await run(["analyze", "scaling", ran.json.experiment_id]);
      expect(scaling.code).toBe(0);
      conforms(ScalingResultSchema, scaling.json);
      expect(scaling.json).toMatchObject({
        experiment_id: ran.json.experiment_id,
        scaling_parameter: "size",
        unit: "ns",
        counts: { succeeded: 8, unattempted: 0 },
      });
      expect(scaling.json.variants.map((v: { variant: string }) => v.variant)).toEqual([
        "quadratic",
        "set",
      ]);
      for (const v of scaling.json.variants)
        expect(v.points.map((p: { input: number }) => p.input)).toEqual([500, 1000, 2000, 4000]);
      expect(scaling.json.frame_correlations.status).toBe("unavailable");
    },
    120_000,
  );

  test("an unknown experiment is a typed error with its exit code", async () => {
    const missing = await run(["experiment", "plan", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.json.error.code).toBe("RECORD_NOT_FOUND");
  });
});
