/**
 * Workload and capture tools over a real stdio client: configure a workload (create,
 * compare-and-swap replace; a proposal until approved on the CLI), list capabilities, plan and
 * execute with progress, refuse a
 * replayed or foreign plan_id, refuse argv/cwd inputs, and cancel a running capture.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { cli, REPO, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;

beforeAll(async () => {
  ws = await tempWorkspace();
  cpSync(join(REPO, "fixtures", "workloads"), join(ws.root, "workloads"), { recursive: true });
  mcp = await connect(ws.root);
}, 60_000);
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("workload and capture tools", () => {
  test("configure_workload creates, then replaces only with the current " +
    "configuration_id", async () => {
    expect((await call(mcp.client, "workload_configuration_status")).result).toMatchObject({
      state: "missing",
      next_tool: "configure_workload",
    });
    const created = await call(mcp.client, "configure_workload", {
      name: "hot",
      operation: "create",
      argv: ["node", "workloads/hot.js", "{ms}"],
      parameters: { ms: [150] },
    });
    expect(created.isError).toBe(false);
    expect(created.result).toMatchObject({ changed: true, previous_configuration_id: null });
    await call(mcp.client, "configure_workload", {
      name: "sleeper",
      operation: "create",
      argv: ["sleep", "30"],
      timeout_seconds: 60,
    });
    const status = (await call(mcp.client, "workload_configuration_status")).result;
    expect(status).toMatchObject({ state: "valid", next_tool: "plan_capture" });
    expect(status.workloads.map((w: Json) => w.name)).toEqual(["hot", "sleeper"]);

    const stale = await call(mcp.client, "configure_workload", {
      name: "hot",
      operation: "replace",
      argv: ["node", "workloads/hot.js", "{ms}"],
      parameters: { ms: [150, 250] },
      expected_configuration_id: created.result.configuration_id,
    });
    expect(stale.isError).toBe(true);
    expect(stale.error).toMatchObject({ code: "REVISION_CONFLICT" });
    expect(stale.error.remediation[0]).toContain("workload_configuration_status");
    const replaced = await call(mcp.client, "configure_workload", {
      name: "hot",
      operation: "replace",
      argv: ["node", "workloads/hot.js", "{ms}"],
      parameters: { ms: [150, 250] },
      expected_configuration_id: status.configuration_id,
    });
    expect(replaced.result).toMatchObject({
      changed: true,
      previous_configuration_id: status.configuration_id,
    });
    // What an MCP client writes is a proposal: unapproved, and the answer names the command that
    // approves it.
    expect(replaced.result.approval).toMatchObject({
      state: "unapproved",
      declared_by: "mcp_client",
      approve_command: "flameox workload approve hot",
    });

    const cli_ = await cli(["workload", "list", "--json"], { cwd: ws.root });
    expect(cli_.json).toEqual((await call(mcp.client, "workload_configuration_status")).result);
  }, 60_000);

  test("no capture tool takes argv, cwd, a shell string or environment", async () => {
    for (const extra of [
      { argv: ["sh", "-c", "id"] },
      { cwd: "/" },
      { command: "id" },
      { environment: { LD_PRELOAD: "x" } },
    ]) {
      const refused = await call(mcp.client, "plan_capture", {
        adapter: "command",
        workload: "hot",
        ...extra,
      });
      expect(refused.error).toMatchObject({ code: "INVALID_ARGUMENTS" });
    }
    const stripped = await call(mcp.client, "configure_workload", {
      name: "evil",
      operation: "create",
      argv: ["true"],
      environment: { LD_PRELOAD: "/x.so" },
    });
    expect(stripped.error).toMatchObject({ code: "CONFIGURATION_INVALID" });
  });

  test("list_capabilities reports each adapter and containment", async () => {
    const caps = (await call(mcp.client, "list_capabilities", { mode: "passive" })).result;
    expect(caps.adapters.map((a: Json) => a.name)).toEqual([
      "command",
      "v8-cpu",
      "v8-heap",
      "perf",
      "hyperfine",
    ]);
    expect(caps.containment.name).toBe("containment.bubblewrap");
    expect(caps.adapters[0]).toMatchObject({ status: "available", probe: "passive" });
  });

  test("plan_capture then execute_capture_plan with progress; the plan_id cannot be " +
    "replayed", async () => {
    const unapproved = await call(mcp.client, "plan_capture", {
      adapter: "v8-cpu",
      workload: "hot",
      parameters: { ms: 250 },
    });
    expect(unapproved.error).toMatchObject({ code: "WORKLOAD_NOT_APPROVED" });
    for (const name of ["hot", "sleeper"])
      expect((await cli(["workload", "approve", name, "--yes"], { cwd: ws.root })).code).toBe(0);
    const plan = await call(mcp.client, "plan_capture", {
      adapter: "v8-cpu",
      workload: "hot",
      parameters: { ms: 250 },
    });
    expect(plan.isError).toBe(false);
    expect(plan.result.containment.state).toBe("uncontained");
    const updates: Json[] = [];
    const answer = (await mcp.client.callTool(
      { name: "execute_capture_plan", arguments: { plan_id: plan.result.plan_id } },
      undefined,
      {
        onprogress: (p) => updates.push(p),
        timeout: 120_000,
      },
    )) as Json;
    const result = answer.structuredContent.result;
    expect(result).toMatchObject({
      execution_status: "succeeded",
      extraction_status: "published",
      next_tool: "analyze_hotspots",
    });
    // The server sends "completed" before the answer, but the SDK client may drop a notification
    // that arrives in the same read as the response (see src/mcp/progress.ts); the earlier ones may
    // not be dropped.
    const phases = updates.map((u) => u.message);
    expect(phases.slice(0, 4)).toEqual(["planning", "capturing", "registering", "extracting"]);
    expect(phases.slice(4)).toEqual(phases.length > 4 ? ["completed"] : []);
    for (let i = 1; i < updates.length; i++)
      expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
    const hotspots = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: result.run_id,
      limit: 1,
    });
    expect(hotspots.result.items[0].function).toBe("burnHotspot");
    const run = await call(mcp.client, "get_run", { run_id: result.run_id });
    expect(run.result.execution.execution.adapter.name).toBe("v8-cpu");
    expect(JSON.stringify(run.result)).not.toContain(".diagnostics/");

    const replay = await call(mcp.client, "execute_capture_plan", { plan_id: plan.result.plan_id });
    expect(replay.error).toMatchObject({ code: "PLAN_CONSUMED", retryable: false });
    expect(replay.error.remediation[0]).toContain("plan_capture");
    const foreign = await call(mcp.client, "execute_capture_plan", { plan_id: "ab".repeat(32) });
    expect(foreign.error).toMatchObject({ code: "INVALID_CAPTURE_PLAN" });
  }, 120_000);

  test("cancelling execute_capture_plan stops the workload and records the run as " +
    "cancelled", async () => {
    const plan = await call(mcp.client, "plan_capture", {
      adapter: "command",
      workload: "sleeper",
    });
    const controller = new AbortController();
    let capturing!: () => void;
    const started = new Promise<void>((resolve) => (capturing = resolve));
    const pending = mcp.client.callTool(
      { name: "execute_capture_plan", arguments: { plan_id: plan.result.plan_id } },
      undefined,
      {
        signal: controller.signal,
        timeout: 120_000,
        onprogress: (p) => p.message === "capturing" && capturing(),
      },
    );
    await started;
    await sleep(300);
    controller.abort("test cancels the capture");
    await expect(pending).rejects.toThrow();
    let newest: Json = null;
    for (let i = 0; i < 100; i++) {
      newest = (await call(mcp.client, "list_runs", { limit: 1 })).result.items[0];
      if (newest.execution_status === "cancelled") break;
      await sleep(100);
    }
    expect(newest).toMatchObject({
      execution_status: "cancelled",
      capture_status: "cancelled",
      error: { code: "PROCESS_CANCELLED" },
    });
    const detail = (await call(mcp.client, "get_run", { run_id: newest.run_id })).result;
    const termination = detail.execution.execution.termination;
    expect(termination.kind).toBe("cancelled");
    expect(termination.signals_sent[0]).toMatchObject({
      signal: "SIGTERM",
      target: "group",
      reason: "cancelled",
    });
    const pid = detail.execution.execution.workload_process.pid;
    expect(Bun.spawnSync(["kill", "-0", String(pid)]).exitCode).not.toBe(0);
  }, 60_000);
});
