/**
 * The study tools through a real stdio client: import benchmark files, query samples,
 * freeze, compare, record; and an experiment planned, run, read back and analysed. The
 * client checks every structuredContent against the tool's declared outputSchema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { allowRuntimeOnWorkloadPath, git } from "../capture/capture-helpers.ts";
import { CORPUS, REPO, cli, tempDir, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;
const runIds: string[] = [];

beforeAll(async () => {
  ws = await tempWorkspace();
  for (let i = 0; i < 2; i++) {
    const r = await cli(
      ["import", join(CORPUS, "hyperfine", "3em-tools-benchmarks-results.json"), "--json"],
      { cwd: ws.root },
    );
    runIds.push(r.json.run_id);
  }
  mcp = await connect(ws.root);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  ws?.cleanup();
});

describe("study tools over MCP", () => {
  test("query_measurements pages raw samples", async () => {
    const page = await call(mcp.client, "query_measurements", {
      run_id: runIds[0],
      name_prefix: "wall_time",
      limit: 5,
    });
    expect(page.isError).toBe(false);
    expect(page.result).toMatchObject({ returned: 5, truncated: true });
    expect(page.result.items[0]).toMatchObject({ name: "wall_time", unit: "ns", is_warmup: false });
    const next = await call(mcp.client, "query_measurements", {
      run_id: runIds[0],
      name_prefix: "wall_time",
      limit: 5,
      cursor: page.result.next_cursor,
    });
    expect(next.result.items[0].measurement_id).not.toBe(page.result.items[0].measurement_id);
  });

  test("freeze_run_set, compare_run_sets and record_comparison", async () => {
    const a = await call(mcp.client, "freeze_run_set", { run_ids: [runIds[0]] });
    const b = await call(mcp.client, "freeze_run_set", { run_ids: [runIds[1]] });
    const request = {
      baseline_run_set_id: a.result.run_set_id,
      candidate_run_set_id: b.result.run_set_id,
      metric: "wall_time",
      scope: "../../target/release/bench",
      polarity: "lower_is_better",
      practical_threshold: 0.05,
    };
    const preview = await call(mcp.client, "compare_run_sets", request);
    expect(preview.isError).toBe(false);
    // The same file imported twice: every ratio is exactly 1, a zero-width interval that
    // would claim certainty; it decides nothing, and says why.
    expect(preview.result).toMatchObject({
      decision: "inconclusive",
      validity: "exploratory",
      complete_pair_n: 20,
      confidence_low: null,
    });
    expect(preview.result.limitations.map((l: { code: string }) => l.code)).toContain(
      "interval_undefined",
    );
    expect(preview.result.mismatches.map((m: { code: string }) => m.code)).toContain(
      "environment_identity_missing",
    );
    const recorded = await call(mcp.client, "record_comparison", request);
    expect(recorded.result.comparison_id).toMatch(/^cmp_/);
    const bad = await call(mcp.client, "compare_run_sets", { ...request, practical_threshold: -1 });
    expect(bad.isError).toBe(true);
  });

  test("plan_experiment without flameox.toml is a typed error", async () => {
    const r = await call(mcp.client, "plan_experiment", { experiment_name: "nope" });
    expect(r.isError).toBe(true);
    expect(r.error.code).toBe("WORKLOAD_NOT_FOUND");
  });
});

describe("experiment tools over MCP", () => {
  const fixture = join(REPO, "fixtures", "experiments", "dedupe");
  let project: { path: string; cleanup: () => void };
  let server: Connected;

  beforeAll(async () => {
    project = tempDir("flameox-mcp-exp-");
    for (const f of readdirSync(fixture)) cpSync(join(fixture, f), join(project.path, f));
    const small =
      `\n[experiments.mcp-scaling]\nworkload = "dedupe"\nvariants = { set = { impl = "set" }, ` +
      `quadratic = { impl = "quadratic" } }\nblocks = 1\nscaling_parameter = ` +
      `"size"\nscaling_values = [500, 1000, 2000]\nprimary_metric = "host_time"\npolarity = ` +
      `"lower_is_better"\npractical_threshold = 0.05\nrandom_seed = 5\n`;
    writeFileSync(
      join(project.path, "flameox.toml"),
      readFileSync(join(project.path, "flameox.toml"), "utf8") + small,
    );
    git(
      project.path,
      ["init", "-q"],
      ["add", "-A"],
      ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "fixture"],
    );
    const init = await cli(["init", project.path, "--json"], { cwd: project.path });
    if (init.code !== 0) throw new Error(`init failed: ${init.stdout}${init.stderr}`);
    allowRuntimeOnWorkloadPath(project.path);
    server = await connect(project.path);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    project?.cleanup();
  });

  test("plan_experiment, run_experiment, get_experiment, list_experiment_trials, " +
    "analyze_scaling", async () => {
    // Until a person approves the workload on the CLI, no experiment of it can be planned.
    const unapproved = await call(server.client, "plan_experiment", {
      experiment_name: "mcp-scaling",
    });
    expect(unapproved.error).toMatchObject({
      code: "WORKLOAD_NOT_APPROVED",
      details: { approve_command: "flameox workload approve dedupe" },
    });
    expect(
      (await cli(["workload", "approve", "dedupe", "--yes", "--json"], { cwd: project.path })).code,
    ).toBe(0);
    const plan = await call(server.client, "plan_experiment", { experiment_name: "mcp-scaling" });
    expect(plan.isError).toBe(false);
    expect(plan.result).toMatchObject({
      trials_planned: 6,
      protocol: { capture: { adapter: "command", source_quality: "clean" } },
    });
    const ran = await call(server.client, "run_experiment", { plan_id: plan.result.plan_id });
    expect(ran.isError).toBe(false);
    expect(ran.result).toMatchObject({
      status: "completed",
      outcome: { counts: { succeeded: 6 } },
    });
    const replay = await call(server.client, "run_experiment", { plan_id: plan.result.plan_id });
    expect(replay.error.code).toBe("PLAN_CONSUMED");
    const got = await call(server.client, "get_experiment", {
      experiment_id: ran.result.experiment_id,
    });
    expect(got.result.outcome).toEqual(ran.result.outcome);
    const trials = await call(server.client, "list_experiment_trials", {
      experiment_id: ran.result.experiment_id,
      limit: 6,
    });
    expect(trials.result.items.map((t: { outcome: string }) => t.outcome)).toEqual(
      Array(6).fill("succeeded"),
    );
    const scaling = await call(server.client, "analyze_scaling", {
      experiment_id: ran.result.experiment_id,
    });
    expect(scaling.isError).toBe(false);
    expect(scaling.result.variants).toHaveLength(2);
    expect(scaling.result.frame_correlations.status).toBe("unavailable");
  }, 120_000);
});
