/**
 * The MCP server end to end through a real stdio client: the first-run sequence from an
 * empty project, every tool with valid arguments, resource templates and resources/read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES, tempDir } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

const EXPECTED_TOOLS = [
  "workspace_status",
  "initialize_workspace",
  "workload_configuration_status",
  "configure_workload",
  "list_capabilities",
  "plan_capture",
  "execute_capture_plan",
  "import_artifact",
  "list_runs",
  "get_run",
  "list_artifacts",
  "get_artifact",
  "analyze_hotspots",
  "get_frame_callers",
  "get_frame_callees",
  "get_stack_examples",
  "get_trace_window",
  "diff_profiles",
  "get_operation_window",
  "get_operation_transitions",
  "get_lifecycle_gaps",
  "analyze_failures",
  "analyze_coverage",
  "analyze_accelerator_timeline",
  "analyze_operators",
  "validate_workspace",
  "get_evidence",
  "summarize_runs",
  "query_measurements",
  "freeze_run_set",
  "compare_run_sets",
  "record_comparison",
  "plan_experiment",
  "run_experiment",
  "get_experiment",
  "list_experiment_trials",
  "analyze_scaling",
  "create_investigation",
  "list_investigations",
  "get_investigation",
  "record_hypothesis",
  "get_hypothesis",
  "record_finding",
  "get_finding",
  "list_findings",
  "record_analysis",
];

/**
 * readOnly/destructive/idempotent/openWorld of every tool that is not plain read-only (REFERENCE
 * presets).
 */
const ADDITIVE = [false, false, false, false];
const CONFIGURE = [false, false, true, false];
const EXECUTE = [false, true, false, true];
/**
 * configure_workload's replace overwrites a declaration and revokes its approval: destructive, not
 * idempotent.
 */
const PROPOSE = [false, true, false, false];
const NOT_READ_ONLY: Record<string, boolean[]> = {
  initialize_workspace: CONFIGURE,
  configure_workload: PROPOSE,
  execute_capture_plan: EXECUTE,
  import_artifact: ADDITIVE,
  freeze_run_set: ADDITIVE,
  record_comparison: ADDITIVE,
  run_experiment: EXECUTE,
  create_investigation: ADDITIVE,
  record_hypothesis: ADDITIVE,
  record_finding: ADDITIVE,
  record_analysis: ADDITIVE,
};

let dir: { path: string; cleanup: () => void };
let mcp: Connected;
let profile: Json;
let trace: Json;

beforeAll(async () => {
  dir = tempDir("flameox-mcp-");
  copyFileSync(join(SAMPLES, "sample.cpuprofile"), join(dir.path, "sample.cpuprofile"));
  copyFileSync(join(SAMPLES, "sample-trace.json"), join(dir.path, "sample-trace.json"));
  mcp = await connect(dir.path);
});
afterAll(async () => {
  await mcp.close();
  dir.cleanup();
});

describe("mcp server", () => {
  test("initialize reports the flameox identity, capabilities and first-run instructions", () => {
    expect(mcp.client.getServerVersion()).toMatchObject({
      name: "flameox",
      version: expect.any(String),
    });
    expect(mcp.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    const instructions = mcp.client.getInstructions() ?? "";
    for (const tool of [
      "workspace_status",
      "initialize_workspace",
      "import_artifact",
      "analyze_hotspots",
      "get_frame_callers",
      "get_stack_examples",
      "get_trace_window",
    ]) {
      expect(instructions).toContain(tool);
    }
    expect(instructions.indexOf("workspace_status")).toBeLessThan(
      instructions.indexOf("get_trace_window"),
    );
  });

  test(
    "tools/list is deterministic and every tool has annotations, inputSchema and " + "outputSchema",
    async () => {
      const first = (await mcp.client.listTools()).tools;
      const second = (await mcp.client.listTools()).tools;
      expect(first.map((t) => t.name)).toEqual(EXPECTED_TOOLS);
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      for (const tool of first) {
        expect(tool.inputSchema.type).toBe("object");
        expect((tool.inputSchema as Json).additionalProperties).toBe(false);
        expect(tool.outputSchema?.type).toBe("object");
        expect(Object.keys(tool.outputSchema?.properties ?? {}).sort()).toEqual([
          "error",
          "ok",
          "result",
          "schema_version",
        ]);
        const a = tool.annotations!;
        const hints = [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint];
        const expected = NOT_READ_ONLY[tool.name] ?? [true, false, true, false];
        expect(hints).toEqual(expected);
        expect(tool.description?.length ?? 0).toBeGreaterThan(20);
      }
    },
  );

  test("resource templates are listed", async () => {
    const templates = (await mcp.client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates).toEqual([
      "flameox://runs/{run_id}",
      "flameox://artifacts/{artifact_id}",
      "flameox://evidence/{ref_type}/{ref_id}",
    ]);
  });

  test(
    "first run: WORKSPACE_NOT_FOUND names initialize_workspace, which is " + "idempotent",
    async () => {
      const missing = await call(mcp.client, "workspace_status");
      expect(missing.isError).toBe(true);
      expect(missing.envelope).toMatchObject({ schema_version: 1, ok: false, result: null });
      expect(missing.error).toMatchObject({ code: "WORKSPACE_NOT_FOUND", retryable: false });
      expect(missing.error.remediation[0]).toContain("initialize_workspace");
      const created = await call(mcp.client, "initialize_workspace");
      expect(created.result.created).toBe(true);
      const again = await call(mcp.client, "initialize_workspace");
      expect(again.result).toMatchObject({
        created: false,
        identity: { workspace_id: created.result.identity.workspace_id },
      });
      const status = await call(mcp.client, "workspace_status");
      expect(status.isError).toBe(false);
      expect(status.result.counts.runs).toBe(0);
      expect(status.text).toContain(created.result.identity.workspace_id);
    },
  );

  test("import_artifact imports a profile and a trace relative to the root", async () => {
    const p = await call(mcp.client, "import_artifact", { path: "sample.cpuprofile" });
    expect(p.isError).toBe(false);
    profile = p.result;
    expect(profile.extraction.adapter).toBe("v8-cpuprofile");
    expect(p.text).toContain(profile.run_id);
    expect(p.text.split("\n").length).toBeLessThanOrEqual(2);
    // The result names the next tool, with arguments that work as given.
    expect(profile.next_tool).toBe("analyze_hotspots");
    expect(profile.next_arguments).toEqual({ run_or_artifact: profile.run_id });
    expect(p.text).toContain("next analyze_hotspots");
    const next = await call(mcp.client, profile.next_tool, profile.next_arguments);
    expect(next.isError).toBe(false);
    expect(next.result.items.length).toBeGreaterThan(0);
    const t = await call(mcp.client, "import_artifact", {
      path: "./sample-trace.json",
      source_root: "project",
      kind: "execution_trace",
      sensitivity: "internal",
    });
    expect(t.isError).toBe(false);
    trace = t.result;
    expect(trace.extraction.tables.trace_events).toBeGreaterThan(0);
    const text = JSON.stringify([p.envelope, t.envelope]);
    expect(text).not.toContain(join(dir.path, ".diagnostics"));
  }, 60_000);

  test("runs and artifacts: list, get, evidence", async () => {
    const runs = await call(mcp.client, "list_runs", { limit: 1 });
    expect(runs.result).toMatchObject({ total: 2, returned: 1, truncated: true });
    const next = await call(mcp.client, "list_runs", { limit: 1, cursor: runs.result.next_cursor });
    expect(next.result.items[0].run_id).not.toBe(runs.result.items[0].run_id);
    const run = await call(mcp.client, "get_run", { run_id: profile.run_id });
    expect(run.result).toMatchObject({ run_id: profile.run_id, extraction_status: "published" });
    const artifacts = await call(mcp.client, "list_artifacts", {});
    expect(artifacts.result.total).toBe(2);
    const artifact = await call(mcp.client, "get_artifact", { artifact_id: trace.artifact_id });
    expect(artifact.result.supported_analyses).toContain("get_trace_window");
    expect(artifact.result.resource_uri).toBe(
      `flameox://artifacts/${encodeURIComponent(trace.artifact_id)}`,
    );
    for (const [ref_type, ref_id] of [
      ["run", profile.run_id],
      ["artifact", trace.artifact_id],
      ["generation", profile.extraction.generation_id],
    ]) {
      const evidence = await call(mcp.client, "get_evidence", { ref_type, ref_id });
      expect(evidence.isError).toBe(false);
      expect(evidence.result.evidence.status).toMatch(/available|partial/);
      expect(evidence.result.generations[0].tables.length).toBeGreaterThan(0);
    }
  });

  test("analysis: hotspots, callers, callees, stack examples, trace window", async () => {
    const hot = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: profile.run_id,
      limit: 5,
    });
    expect(hot.result.items).toHaveLength(5);
    expect(hot.result.evidence.status).toMatch(/available|partial/);
    const frame =
      hot.result.items.find(
        (h: Json) => h.function !== "(program)" && h.function !== "(garbage collector)",
      ) ?? hot.result.items[0];
    for (const name of ["get_frame_callers", "get_frame_callees", "get_stack_examples"]) {
      const drill = await call(mcp.client, name, {
        run_or_artifact: profile.artifact_id,
        frame_id: frame.frame_id,
        limit: 3,
      });
      expect(drill.isError).toBe(false);
      expect(drill.result.frame.frame_id).toBe(frame.frame_id);
    }
    const probe = await call(mcp.client, "get_trace_window", {
      artifact_id: trace.artifact_id,
      start_ns: "0",
      end_ns: 0,
    });
    const start = probe.result.trace_bounds.start_ns;
    const window = await call(mcp.client, "get_trace_window", {
      artifact_id: trace.artifact_id,
      start_ns: start,
      end_ns: (BigInt(start) + 50_000_000n).toString(),
      limit: 10,
    });
    expect(window.result.returned).toBeGreaterThan(0);
    expect(window.result.items[0].ts_ns).toMatch(/^\d+$/);
  }, 60_000);

  test("validate_workspace in standard and full mode", async () => {
    const standard = await call(mcp.client, "validate_workspace", {});
    expect(standard.result).toMatchObject({ ok: true, level: "standard" });
    const full = await call(mcp.client, "validate_workspace", { mode: "full" });
    expect(full.result).toMatchObject({ ok: true, level: "full" });
  });

  test(
    "domain errors are typed isError results whose remediation names the next " + "tool",
    async () => {
      const run = await call(mcp.client, "get_run", {
        run_id: "run_00000000-0000-0000-0000-000000000000",
      });
      expect(run.error.code).toBe("RUN_NOT_FOUND");
      expect(run.error.remediation[0]).toContain("list_runs");
      const frame = await call(mcp.client, "get_frame_callers", {
        run_or_artifact: profile.run_id,
        frame_id: "no-such-frame",
      });
      expect(frame.error.code).toBe("FRAME_NOT_FOUND");
      expect(frame.error.remediation[0]).toContain("analyze_hotspots");
      expect(JSON.stringify([run.envelope, frame.envelope])).not.toMatch(/\n\s+at /);
    },
  );

  test(
    "resources: run, artifact (percent-encoded id) and evidence read as JSON " + "metadata",
    async () => {
      const uris = [
        `flameox://runs/${profile.run_id}`,
        `flameox://artifacts/${encodeURIComponent(profile.artifact_id)}`,
        `flameox://evidence/run/${profile.run_id}`,
        `flameox://evidence/artifact/${encodeURIComponent(trace.artifact_id)}`,
        `flameox://evidence/generation/${trace.extraction.generation_id}`,
      ];
      for (const uri of uris) {
        const read = await mcp.client.readResource({ uri });
        expect(read.contents[0]).toMatchObject({ uri, mimeType: "application/json" });
        const body = JSON.parse((read.contents[0] as { text: string }).text);
        expect(JSON.stringify(body)).not.toContain(".diagnostics/");
      }
      const artifact = JSON.parse(
        ((await mcp.client.readResource({ uri: uris[1]! })).contents[0] as { text: string }).text,
      );
      expect(artifact.artifact_id).toBe(profile.artifact_id);
      await expect(
        mcp.client.readResource({ uri: "flameox://runs/run_00000000-0000-0000-0000-000000000000" }),
      ).rejects.toThrow(/RUN|Cannot find/);
      await expect(mcp.client.readResource({ uri: "flameox://nothing/here" })).rejects.toThrow(
        /template/,
      );
    },
  );

  test("an unknown tool is a protocol error, not a tool result", async () => {
    await expect(mcp.client.callTool({ name: "run_shell", arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  test("a stale cursor is STALE_CURSOR with a repeat-without-cursor remedy", async () => {
    const hot = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: profile.artifact_id,
      limit: 2,
    });
    await call(mcp.client, "import_artifact", { path: "sample.cpuprofile" });
    const stale = await call(mcp.client, "analyze_hotspots", {
      run_or_artifact: profile.artifact_id,
      limit: 2,
      cursor: hot.result.next_cursor,
    });
    expect(stale.error.code).toBe("STALE_CURSOR");
    expect(stale.error.remediation[0]).toContain("without cursor");
  }, 60_000);
});
