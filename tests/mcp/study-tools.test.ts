/** The issue-5 tools through a real stdio client: import benchmark files, query samples, freeze, compare, record. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { CORPUS, cli, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;
const runIds: string[] = [];

beforeAll(async () => {
  ws = await tempWorkspace();
  for (let i = 0; i < 2; i++) {
    const r = await cli(["import", join(CORPUS, "hyperfine", "3em-tools-benchmarks-results.json"), "--json"], { cwd: ws.root });
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
    const page = await call(mcp.client, "query_measurements", { run_id: runIds[0], name_prefix: "wall_time", limit: 5 });
    expect(page.isError).toBe(false);
    expect(page.result).toMatchObject({ returned: 5, truncated: true });
    expect(page.result.items[0]).toMatchObject({ name: "wall_time", unit: "ns", is_warmup: false });
    const next = await call(mcp.client, "query_measurements", { run_id: runIds[0], name_prefix: "wall_time", limit: 5, cursor: page.result.next_cursor });
    expect(next.result.items[0].measurement_id).not.toBe(page.result.items[0].measurement_id);
  });

  test("freeze_run_set, compare_run_sets and record_comparison", async () => {
    const a = await call(mcp.client, "freeze_run_set", { run_ids: [runIds[0]] });
    const b = await call(mcp.client, "freeze_run_set", { run_ids: [runIds[1]] });
    const request = { baseline_run_set_id: a.result.run_set_id, candidate_run_set_id: b.result.run_set_id, metric: "wall_time", scope: "../../target/release/bench", polarity: "lower_is_better", practical_threshold: 0.05 };
    const preview = await call(mcp.client, "compare_run_sets", request);
    expect(preview.isError).toBe(false);
    expect(preview.result).toMatchObject({ decision: "no_meaningful_difference", validity: "exploratory", complete_pair_n: 20 });
    expect(preview.result.mismatches.map((m: { code: string }) => m.code)).toContain("environment_identity_missing");
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
