/**
 * The CLI's `--json` output is the result model the MCP tool returns: for the same
 * operation it validates against the tool's published result schema (with the SDK's own
 * Ajv validator and with the arktype type behind it) and equals the MCP result.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { type } from "arktype";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { describeTool, fullOutputSchema } from "../../src/mcp/tool-registry.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { cli, SAMPLES, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;
let profile: Json;
let trace: Json;
const ajv = new AjvJsonSchemaValidator();

beforeAll(async () => {
  ws = await tempWorkspace();
  profile = (await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: ws.root }))
    .json;
  trace = (await cli(["import", join(SAMPLES, "sample-trace.json"), "--json"], { cwd: ws.root }))
    .json;
  mcp = await connect(ws.root);
}, 60_000);
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

/**
 * Checks a CLI --json value against the tool's result schema: as published (brief), in full, and as
 * arktype.
 */
function expectFitsTool(toolName: string, value: unknown): void {
  const tool = TOOLS.find((t) => t.name === toolName)!;
  for (const schema of [describeTool(tool).outputSchema, fullOutputSchema(tool)]) {
    const verdict = ajv.getValidator((schema.properties as Json).result)(value);
    expect(verdict.errorMessage ?? "valid").toBe("valid");
  }
  const checked = tool.result(value);
  expect(checked instanceof type.errors ? checked.summary : "valid").toBe("valid");
}

const CASES: {
  tool: string;
  cliArgs: () => string[];
  mcpArgs: () => Record<string, unknown>;
  volatile?: string[];
}[] = [
  { tool: "workspace_status", cliArgs: () => ["status"], mcpArgs: () => ({}) },
  {
    tool: "list_runs",
    cliArgs: () => ["runs", "list", "--limit", "5"],
    mcpArgs: () => ({ limit: 5 }),
  },
  {
    tool: "get_run",
    cliArgs: () => ["runs", "show", profile.run_id],
    mcpArgs: () => ({ run_id: profile.run_id }),
  },
  { tool: "list_artifacts", cliArgs: () => ["artifacts", "list"], mcpArgs: () => ({}) },
  {
    tool: "get_artifact",
    cliArgs: () => ["artifacts", "show", trace.artifact_id],
    mcpArgs: () => ({ artifact_id: trace.artifact_id }),
  },
  {
    tool: "analyze_hotspots",
    cliArgs: () => ["analyze", "hotspots", profile.artifact_id, "--limit", "7"],
    mcpArgs: () => ({ run_or_artifact: profile.artifact_id, limit: 7 }),
  },
  {
    tool: "get_frame_callers",
    cliArgs: () => ["stacks", "callers", profile.artifact_id, profile.frame],
    mcpArgs: () => ({ run_or_artifact: profile.artifact_id, frame_id: profile.frame }),
  },
  {
    tool: "get_stack_examples",
    cliArgs: () => ["stacks", "examples", profile.run_id, profile.frame, "--limit", "3"],
    mcpArgs: () => ({ run_or_artifact: profile.run_id, frame_id: profile.frame, limit: 3 }),
  },
  {
    tool: "get_trace_window",
    cliArgs: () => [
      "trace",
      "window",
      trace.artifact_id,
      "--start",
      "0",
      "--end",
      "999999999999999",
      "--limit",
      "20",
    ],
    mcpArgs: () => ({
      artifact_id: trace.artifact_id,
      start_ns: "0",
      end_ns: "999999999999999",
      limit: 20,
    }),
  },
  { tool: "validate_workspace", cliArgs: () => ["validate"], mcpArgs: () => ({}) },
];

describe("CLI --json and MCP results share one schema", () => {
  test("import --json fits the import_artifact result schema", () => {
    expectFitsTool("import_artifact", profile);
    expectFitsTool("import_artifact", trace);
  });

  for (const c of CASES) {
    test(`${c.tool}: CLI --json fits the tool's result schema and equals the MCP ` +
      `result`, async () => {
      if (!profile.frame) {
        const hot = (
          await cli(["analyze", "hotspots", profile.artifact_id, "--limit", "1", "--json"], {
            cwd: ws.root,
          })
        ).json;
        profile.frame = hot.items[0].frame_id;
      }
      const fromCli = await cli([...c.cliArgs(), "--json"], { cwd: ws.root });
      expect(fromCli.code).toBe(0);
      expectFitsTool(c.tool, fromCli.json);
      const fromMcp = await call(mcp.client, c.tool, c.mcpArgs());
      expect(fromMcp.isError).toBe(false);
      expect(fromMcp.result).toEqual(fromCli.json);
      // Each case starts a CLI process (Bun, then DuckDB for analyses) beside the shared
      // server: seconds when idle, tens of seconds on a loaded 2-core machine, where 30 s
      // timed out. The budget is the suite's own (make test: 120 s).
    }, 120_000);
  }

  test("a CLI error --json carries the same error payload shape as the MCP envelope", async () => {
    const fromCli = await cli(["runs", "show", "run_missing", "--json"], { cwd: ws.root });
    const fromMcp = await call(mcp.client, "get_run", { run_id: "run_missing" });
    expect(fromCli.json.error.code).toBe(fromMcp.error.code);
    expect(Object.keys(fromCli.json.error).sort()).toEqual(
      Object.keys(fromMcp.error)
        .filter((k) => k !== "details")
        .sort(),
    );
  });
});
