/**
 * Over MCP alone nothing runs that a person did not approve on the CLI, driven through a
 * real stdio client: configure_workload → plan_capture → execute_capture_plan with a
 * `sh -c` command is refused with WORKLOAD_NOT_APPROVED naming `flameox workload
 * approve`; replacing a person's approved workload leaves it unapproved and its earlier
 * plan runs nothing; revoking on the CLI stops a plan already made; no tool mutates
 * approvals. Once a person approves on the CLI, the same plan_capture and
 * execute_capture_plan run it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;

const HUMAN_TOML = `# declared by a person
[workloads.scan]
argv = ["true"]
`;

beforeAll(async () => {
  ws = await tempWorkspace();
  writeFileSync(join(ws.root, "flameox.toml"), HUMAN_TOML);
  mcp = await connect(ws.root);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  ws?.cleanup();
});

const marker = (name: string) => join(ws.root, name);
const runCount = async () => (await call(mcp.client, "list_runs", { limit: 1 })).result.total;

describe("approval over MCP", () => {
  test("configure → plan → execute of a sh -c command is refused with WORKLOAD_NOT_APPROVED; " +
    "nothing runs", async () => {
    const proposed = await call(mcp.client, "configure_workload", {
      name: "pwn",
      operation: "create",
      argv: ["sh", "-c", "id > pwned.txt"],
    });
    expect(proposed.isError).toBe(false);
    expect(proposed.result).toMatchObject({
      changed: true,
      approval: {
        state: "unapproved",
        declared_by: "mcp_client",
        approve_command: "flameox workload approve pwn",
      },
    });
    expect(proposed.text).toContain("flameox workload approve pwn");

    const plan = await call(mcp.client, "plan_capture", { adapter: "command", workload: "pwn" });
    expect(plan.isError).toBe(true);
    expect(plan.error).toMatchObject({
      code: "WORKLOAD_NOT_APPROVED",
      retryable: false,
      details: { state: "unapproved", declared_by: "mcp_client" },
    });
    expect(plan.error.message).toContain("`flameox workload approve pwn`");
    expect(plan.error.remediation[0]).toContain("details.approve_command");
    // With no plan to execute, a guessed plan_id is not one either.
    const execute = await call(mcp.client, "execute_capture_plan", { plan_id: "ab".repeat(32) });
    expect(execute.error).toMatchObject({ code: "INVALID_CAPTURE_PLAN" });
    // Every adapter refuses it at planning, before any probe of its executable.
    for (const adapter of ["v8-cpu", "hyperfine", "perf"]) {
      expect(
        (await call(mcp.client, "plan_capture", { adapter, workload: "pwn" })).error.code,
      ).toMatch(/^(WORKLOAD_NOT_APPROVED|CAPABILITY_UNAVAILABLE)$/);
    }
    expect(existsSync(marker("pwned.txt"))).toBe(false);
    expect(await runCount()).toBe(0);
  }, 60_000);

  test("no tool approves, revokes or otherwise changes an approval", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.filter((t) => /approv|revoke|trust|allow/i.test(t.name))).toEqual([]);
    for (const t of tools)
      expect(
        Object.keys((t.inputSchema as Json).properties ?? {}).filter((k) => /approv/i.test(k)),
      ).toEqual([]);
    const configure = tools.find((t) => t.name === "configure_workload")!;
    expect(configure.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    // Unknown keys are refused, so an approval cannot ride along with a declaration.
    const smuggled = await call(mcp.client, "configure_workload", {
      name: "pwn2",
      operation: "create",
      argv: ["true"],
      approved: true,
    });
    expect(smuggled.error.code).toBe("INVALID_ARGUMENTS");
  });

  test("replacing a person's approved workload leaves it unapproved, and its earlier plan runs " +
    "nothing", async () => {
    expect((await cli(["workload", "approve", "scan", "--yes"], { cwd: ws.root })).code).toBe(0);
    const status = (await call(mcp.client, "workload_configuration_status")).result;
    expect(status.workloads.find((w: Json) => w.name === "scan").approval).toMatchObject({
      state: "approved",
      declared_by: "project_file",
      approved_by: expect.any(String),
    });
    const earlier = await call(mcp.client, "plan_capture", {
      adapter: "command",
      workload: "scan",
    });
    expect(earlier.isError).toBe(false);
    // A copy of the approved definition under another name is not approved: an approval covers one
    // name.
    const copy = await call(mcp.client, "configure_workload", {
      name: "scan-copy",
      operation: "create",
      argv: ["true"],
    });
    expect(copy.result).toMatchObject({
      workload_definition_id: status.workloads.find((w: Json) => w.name === "scan")
        .workload_definition_id,
      approval: { state: "unapproved" },
    });
    const status2 = (await call(mcp.client, "workload_configuration_status")).result;

    const replaced = await call(mcp.client, "configure_workload", {
      name: "scan",
      operation: "replace",
      expected_configuration_id: status2.configuration_id,
      argv: ["sh", "-c", "id > pwned.txt"],
    });
    expect(replaced.result).toMatchObject({
      changed: true,
      approval: {
        state: "stale",
        declared_by: "mcp_client",
        approve_command: "flameox workload approve scan",
      },
    });
    const afterReplace = (
      await call(mcp.client, "workload_configuration_status")
    ).result.workloads.find((w: Json) => w.name === "scan");
    expect(afterReplace.approval.state).toBe("stale");

    const stale = await call(mcp.client, "execute_capture_plan", {
      plan_id: earlier.result.plan_id,
    });
    expect(stale.isError).toBe(true);
    expect(["WORKLOAD_CHANGED", "WORKLOAD_NOT_APPROVED"]).toContain(stale.error.code);
    const replanned = await call(mcp.client, "plan_capture", {
      adapter: "command",
      workload: "scan",
    });
    expect(replanned.error).toMatchObject({
      code: "WORKLOAD_NOT_APPROVED",
      details: { state: "stale" },
    });
    expect(replanned.error.message).toContain("`flameox workload approve scan`");
    expect(existsSync(marker("pwned.txt"))).toBe(false);
    expect(await runCount()).toBe(0);
    // The file still says what the agent wrote; the person's comment is kept.
    expect(readFileSync(marker("flameox.toml"), "utf8")).toContain("# declared by a person");
  }, 60_000);

  test("after `flameox workload approve --yes` the same tools run it; revoking on the CLI stops " +
    "a plan already made", async () => {
    const approved = await cli(["workload", "approve", "pwn", "--yes", "--json"], { cwd: ws.root });
    expect(approved.json).toMatchObject({
      outcome: "approved",
      approval: { state: "approved", declared_by: "mcp_client" },
    });
    const plan = await call(mcp.client, "plan_capture", { adapter: "command", workload: "pwn" });
    expect(plan.isError).toBe(false);
    const ran = await call(mcp.client, "execute_capture_plan", { plan_id: plan.result.plan_id });
    expect(ran.result).toMatchObject({ execution_status: "succeeded" });
    expect(readFileSync(marker("pwned.txt"), "utf8")).toMatch(/^uid=/);

    const again = await call(mcp.client, "plan_capture", { adapter: "command", workload: "pwn" });
    expect(
      (await cli(["workload", "revoke", "pwn", "--json"], { cwd: ws.root })).json,
    ).toMatchObject({ revoked: 1 });
    const before = await runCount();
    const refused = await call(mcp.client, "execute_capture_plan", {
      plan_id: again.result.plan_id,
    });
    expect(refused.error).toMatchObject({ code: "WORKLOAD_NOT_APPROVED" });
    expect(await runCount()).toBe(before);
  }, 60_000);
});
