/**
 * A use case's request is checked by one schema whichever door it comes through: for the
 * same bad value, `flameox … --json` and the MCP tool both answer INVALID_ARGUMENTS naming
 * the same field with the same message, and a valid request is answered by both.
 *
 * The one intended difference is the largest page: a tool's result must fit the server's
 * byte budget, so a tool takes a smaller `limit` than the CLI (which any workspace caps at
 * its analysis.max_row_limit); those cases compare the code and the field only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, REPO, SAMPLES, tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

let ws: { root: string; cleanup: () => void };
let mcp: Connected;
let profile: Json;
let trace: Json;

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

const SEPARATOR = "\u0000end of command\u0000";

/**
 * Runs CLI commands one after another in one fresh process (each start costs ~0.5 s of
 * CPU), returning each one's exit code and --json output. The first command's module
 * sets the validation mode, as it does in a process of its own.
 */
function cliBatch(commands: string[][]): { code: number; json: Json }[] {
  const probe = `const { writeSync } = await import("node:fs");
    const { runCli } = await import(${JSON.stringify(join(REPO, "src", "cli", "main.ts"))});
    for (const argv of ${JSON.stringify(commands)}) { const code = await runCli(argv); \
writeSync(1, ${JSON.stringify(SEPARATOR)} + code + "\\n"); }`;
  const r = Bun.spawnSync([process.execPath, "-e", probe], {
    cwd: ws.root,
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(r.stderr.toString()).toBe("");
  const parts = r.stdout.toString().split(SEPARATOR).slice(0, -1);
  const codes = [...r.stdout.toString().matchAll(new RegExp(`${SEPARATOR}(\\d+)`, "g"))].map((m) =>
    Number(m[1]),
  );
  return parts.map((part, i) => ({
    code: codes[i]!,
    json: JSON.parse(part.replace(/^\d+\n/, "")),
  }));
}

interface Case {
  tool: string;
  mcp: () => Record<string, unknown>;
  cli: () => string[];
  field: string;
  /** False where the page bounds differ by design (see above). */
  sameMessage?: boolean;
}

const P = () => profile.artifact_id as string;
const COMPARISON = (change: Record<string, unknown>) => ({
  baseline_run_set_id: "rs_a",
  candidate_run_set_id: "rs_b",
  metric: "wall_time",
  polarity: "lower_is_better",
  practical_threshold: 0.05,
  ...change,
});
const T = () => trace.artifact_id as string;

const REFUSED: Case[] = [
  {
    tool: "analyze_hotspots",
    mcp: () => ({ run_or_artifact: P(), metric: "memory" }),
    cli: () => ["analyze", "hotspots", P(), "--metric", "memory"],
    field: "metric",
  },
  {
    tool: "analyze_hotspots",
    mcp: () => ({ run_or_artifact: P(), granularity: "module" }),
    cli: () => ["analyze", "hotspots", P(), "--granularity", "module"],
    field: "granularity",
  },
  {
    tool: "analyze_hotspots",
    mcp: () => ({ run_or_artifact: P(), limit: 0 }),
    cli: () => ["analyze", "hotspots", P(), "--limit", "0"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "analyze_hotspots",
    mcp: () => ({ run_or_artifact: P(), limit: "ten" }),
    cli: () => ["analyze", "hotspots", P(), "--limit", "ten"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "analyze_hotspots",
    mcp: () => ({ run_or_artifact: "x".repeat(201) }),
    cli: () => ["analyze", "hotspots", "x".repeat(201)],
    field: "run_or_artifact",
  },
  {
    tool: "get_frame_callers",
    mcp: () => ({ run_or_artifact: P(), frame_id: "f", granularity: "file" }),
    cli: () => ["stacks", "callers", P(), "f", "--granularity", "file"],
    field: "granularity",
  },
  {
    tool: "get_frame_callees",
    mcp: () => ({ run_or_artifact: P(), frame_id: "f", limit: 1.5 }),
    cli: () => ["stacks", "callees", P(), "f", "--limit", "1.5"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "get_stack_examples",
    mcp: () => ({ run_or_artifact: P(), frame_id: "", metric: "cpu_time" }),
    cli: () => ["stacks", "examples", P(), "", "--metric", "cpu_time"],
    field: "frame_id",
  },
  {
    tool: "get_trace_window",
    mcp: () => ({ artifact_id: T(), start_ns: "1.5", end_ns: "2" }),
    cli: () => ["trace", "window", T(), "--start", "1.5", "--end", "2"],
    field: "start_ns",
  },
  {
    tool: "get_trace_window",
    mcp: () => ({ artifact_id: T(), start_ns: "0", end_ns: "9999999999999999999" }),
    cli: () => ["trace", "window", T(), "--start", "0", "--end", "9999999999999999999"],
    field: "end_ns",
  },
  {
    tool: "diff_profiles",
    mcp: () => ({ base: P(), candidate: T(), sort: "biggest" }),
    cli: () => ["diff", P(), T(), "--sort", "biggest"],
    field: "sort",
  },
  {
    tool: "diff_profiles",
    mcp: () => ({ base: P(), candidate: T(), metric: "heap" }),
    cli: () => ["diff", P(), T(), "--metric", "heap"],
    field: "metric",
  },
  {
    tool: "summarize_runs",
    mcp: () => ({ run_ids: [profile.run_id], hotspots: 26 }),
    cli: () => ["summarize", profile.run_id, "--hotspots", "26"],
    field: "hotspots",
  },
  {
    tool: "summarize_runs",
    mcp: () => ({ run_ids: Array.from({ length: 11 }, (_, i) => `run_${i}`) }),
    cli: () => ["summarize", ...Array.from({ length: 11 }, (_, i) => `run_${i}`)],
    field: "run_ids",
  },
  {
    tool: "summarize_runs",
    mcp: () => ({ run_ids: [profile.run_id, trace.run_id], compare: true, functions: 26 }),
    cli: () => ["summarize", "--compare", profile.run_id, trace.run_id, "--functions", "26"],
    field: "functions",
  },
  {
    tool: "summarize_runs",
    mcp: () => ({ run_ids: [profile.run_id, trace.run_id, "run_3"], compare: true }),
    cli: () => ["summarize", "--compare", profile.run_id, trace.run_id, "run_3"],
    field: "run_ids",
  },
  {
    tool: "analyze_failures",
    mcp: () => ({ run_or_artifact: [P(), ""] }),
    cli: () => ["analyze", "failures", P(), ""],
    field: "run_or_artifact",
  },
  {
    tool: "analyze_coverage",
    mcp: () => ({ run_or_artifact: P(), base: "" }),
    cli: () => ["analyze", "coverage", P(), "--diff", ""],
    field: "base",
  },
  {
    tool: "analyze_accelerator_timeline",
    mcp: () => ({ run_or_artifact: P(), min_gap_ns: -1 }),
    cli: () => ["analyze", "accelerator", P(), "--min-gap-ns", "-1"],
    field: "min_gap_ns",
  },
  {
    tool: "analyze_operators",
    mcp: () => ({ run_or_artifact: P(), limit: 0 }),
    cli: () => ["analyze", "operators", P(), "--limit", "0"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "get_operation_window",
    mcp: () => ({ artifact_id: T(), start_ns: "0", end_ns: "2", trace_id: "xyz" }),
    cli: () => [
      "trace",
      "operation-window",
      T(),
      "--start",
      "0",
      "--end",
      "2",
      "--trace-id",
      "xyz",
    ],
    field: "trace_id",
  },
  {
    tool: "get_operation_window",
    mcp: () => ({ artifact_id: T(), start_ns: "-1", end_ns: "2" }),
    cli: () => ["trace", "operation-window", T(), "--start", "-1", "--end", "2"],
    field: "start_ns",
  },
  {
    tool: "get_operation_transitions",
    mcp: () => ({ artifact_id: T(), max_depth: 0 }),
    cli: () => ["trace", "transitions", T(), "--max-depth", "0"],
    field: "max_depth",
  },
  {
    tool: "get_lifecycle_gaps",
    mcp: () => ({ artifact_id: T(), limit: 0 }),
    cli: () => ["trace", "gaps", T(), "--limit", "0"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "list_runs",
    mcp: () => ({ cursor: "" }),
    cli: () => ["runs", "list", "--cursor", ""],
    field: "cursor",
  },
  {
    tool: "list_artifacts",
    mcp: () => ({ limit: -3 }),
    cli: () => ["artifacts", "list", "--limit", "-3"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "get_run",
    mcp: () => ({ run_id: "r".repeat(201) }),
    cli: () => ["runs", "show", "r".repeat(201)],
    field: "run_id",
  },
  {
    tool: "get_artifact",
    mcp: () => ({ artifact_id: "a".repeat(201) }),
    cli: () => ["artifacts", "show", "a".repeat(201)],
    field: "artifact_id",
  },
  {
    tool: "query_measurements",
    mcp: () => ({ name_prefix: "" }),
    cli: () => ["measurements", "query", "--name-prefix", ""],
    field: "name_prefix",
  },
  {
    tool: "query_measurements",
    mcp: () => ({ run_id: profile.run_id, limit: 0 }),
    cli: () => ["measurements", "query", "--run-id", profile.run_id, "--limit", "0"],
    field: "limit",
    sameMessage: false,
  },
  {
    tool: "freeze_run_set",
    mcp: () => ({ run_ids: [profile.run_id, ""] }),
    cli: () => ["run-sets", "freeze", profile.run_id, ""],
    field: "run_ids.1",
  },
  // The CLI takes a comparison as JSON; it used to reach the use case unchecked.
  {
    tool: "compare_run_sets",
    mcp: () => COMPARISON({ metric: 5 }),
    cli: () => ["analyze", "compare", JSON.stringify(COMPARISON({ metric: 5 }))],
    field: "metric",
  },
  {
    tool: "compare_run_sets",
    mcp: () => COMPARISON({ polarity: "faster" }),
    cli: () => ["analyze", "compare", JSON.stringify(COMPARISON({ polarity: "faster" }))],
    field: "polarity",
  },
  {
    tool: "record_comparison",
    mcp: () => COMPARISON({ sql: "SELECT 1" }),
    cli: () => ["analyze", "record-comparison", JSON.stringify(COMPARISON({ sql: "SELECT 1" }))],
    field: "sql",
  },
  {
    tool: "record_comparison",
    mcp: () => COMPARISON({ practical_threshold: 0 }),
    cli: () => [
      "analyze",
      "record-comparison",
      JSON.stringify(COMPARISON({ practical_threshold: 0 })),
    ],
    field: "practical_threshold",
  },
  {
    tool: "plan_experiment",
    mcp: () => ({ experiment_name: "e".repeat(65) }),
    cli: () => ["experiment", "plan", "e".repeat(65)],
    field: "experiment_name",
  },
  {
    tool: "get_experiment",
    mcp: () => ({ experiment_id: "" }),
    cli: () => ["experiment", "show", ""],
    field: "experiment_id",
  },
  {
    tool: "analyze_scaling",
    mcp: () => ({ experiment_id: "x".repeat(201) }),
    cli: () => ["analyze", "scaling", "x".repeat(201)],
    field: "experiment_id",
  },
  {
    tool: "create_investigation",
    mcp: () => ({ title: "t", status: "paused" }),
    cli: () => ["investigations", "create", JSON.stringify({ title: "t", status: "paused" })],
    field: "status",
  },
  {
    tool: "list_investigations",
    mcp: () => ({ cursor: "" }),
    cli: () => ["investigations", "list", "--cursor", ""],
    field: "cursor",
  },
  {
    tool: "get_investigation",
    mcp: () => ({ investigation_id: "" }),
    cli: () => ["investigations", "show", ""],
    field: "investigation_id",
  },
  {
    tool: "record_hypothesis",
    mcp: () => ({ statement: "s", expected_revision: 0 }),
    cli: () => ["hypotheses", "record", JSON.stringify({ statement: "s", expected_revision: 0 })],
    field: "expected_revision",
  },
  {
    tool: "get_hypothesis",
    mcp: () => ({ hypothesis_id: "h", revision: 1.5 }),
    cli: () => ["hypotheses", "show", "h", "--revision", "1.5"],
    field: "revision",
  },
  {
    tool: "record_finding",
    mcp: () => ({ statement: "s", kind: "speedup", evidence_level: "observed" }),
    cli: () => [
      "findings",
      "record",
      JSON.stringify({ statement: "s", kind: "speedup", evidence_level: "observed" }),
    ],
    field: "kind",
  },
  {
    tool: "get_finding",
    mcp: () => ({ finding_id: "f", revision: 0 }),
    cli: () => ["findings", "show", "f", "--revision", "0"],
    field: "revision",
  },
  {
    tool: "list_findings",
    mcp: () => ({ investigation_id: "" }),
    cli: () => ["findings", "list", "--investigation", ""],
    field: "investigation_id",
  },
  {
    tool: "record_analysis",
    mcp: () => ({ recipe: "flamegraph", run_or_artifact: P() }),
    cli: () => [
      "analyze",
      "record",
      JSON.stringify({ recipe: "flamegraph", run_or_artifact: P() }),
    ],
    field: "recipe",
  },
  {
    tool: "plan_capture",
    mcp: () => ({ adapter: "strace", workload: "w" }),
    cli: () => ["capture", "plan", "strace", "--workload", "w"],
    field: "adapter",
  },
  {
    tool: "plan_capture",
    mcp: () => ({ adapter: "command", workload: "w", containment: "none" }),
    cli: () => ["capture", "plan", "command", "--workload", "w", "--containment", "none"],
    field: "containment",
  },
  {
    tool: "plan_capture",
    mcp: () => ({ adapter: "command", workload: "Bad Name" }),
    cli: () => ["capture", "plan", "command", "--workload", "Bad Name"],
    field: "workload",
  },
  {
    tool: "list_capabilities",
    mcp: () => ({ adapter: "strace" }),
    cli: () => ["capabilities", "--adapter", "strace", "--passive"],
    field: "adapter",
  },
  {
    tool: "import_artifact",
    mcp: () => ({ path: "a.json", kind: "flamegraph" }),
    cli: () => ["import", join(SAMPLES, "sample.cpuprofile"), "--kind", "flamegraph"],
    field: "kind",
  },
  {
    tool: "import_artifact",
    mcp: () => ({ path: "a.json", media_type: "json" }),
    cli: () => ["import", join(SAMPLES, "sample.cpuprofile"), "--media-type", "json"],
    field: "media_type",
  },
  {
    tool: "list_experiment_trials",
    mcp: () => ({ experiment_id: "exp_1", limit: 2.5 }),
    cli: () => ["experiment", "trials", "exp_1", "--limit", "2.5"],
    field: "limit",
    sameMessage: false,
  },
];

describe("one request schema behind the CLI and the MCP tool", () => {
  test("each bad value is refused by both doors with INVALID_ARGUMENTS naming the same " +
    "field", async () => {
    const fromCliAll = cliBatch(REFUSED.map((c) => [...c.cli(), "--json"]));
    expect(fromCliAll).toHaveLength(REFUSED.length);
    for (const [i, c] of REFUSED.entries()) {
      const [fromCli, fromMcp] = [fromCliAll[i]!, await call(mcp.client, c.tool, c.mcp())];
      const where = `${c.tool} ${JSON.stringify(c.mcp())}`;
      expect({
        where,
        code: fromCli.code,
        error: fromCli.json?.error?.code,
        field: fromCli.json?.error?.details?.field,
      }).toEqual({ where, code: 2, error: "INVALID_ARGUMENTS", field: c.field });
      expect({ where, error: fromMcp.error?.code, field: fromMcp.error?.details?.field }).toEqual({
        where,
        error: "INVALID_ARGUMENTS",
        field: c.field,
      });
      if (c.sameMessage !== false)
        expect({ where, message: fromCli.json.error.message }).toEqual({
          where,
          message: fromMcp.error.message,
        });
      expect(fromMcp.error.message).toContain(c.field.split(".")[0]!);
    }
  }, 120_000);

  test("a fresh CLI process words a refusal as the server does, whichever command loads the " +
    "schemas", async () => {
    const FRESH = [
      REFUSED[0]!,
      REFUSED.find((c) => c.tool === "diff_profiles")!,
      REFUSED.find((c) => c.tool === "summarize_runs")!,
      REFUSED.find((c) => c.tool === "get_artifact")!,
    ];
    const answers = await Promise.all(
      FRESH.map((c) =>
        Promise.all([
          cli([...c.cli(), "--json"], { cwd: ws.root }),
          call(mcp.client, c.tool, c.mcp()),
        ]),
      ),
    );
    for (const [fromCli, fromMcp] of answers)
      expect(fromCli.json.error.message).toBe(fromMcp.error.message);
  }, 60_000);

  test(
    "requests only the CLI takes (flamegraph, export, open, compare --run and --baseline-run, " +
      "runs logs, run-sets show) are refused through their schemas too",
    () => {
      const cases: [string[], string, string][] = [
        [
          ["flamegraph", P(), "-o", join(ws.root, "f.html"), "--width", "100"],
          "width_px",
          "Invalid flamegraph request: width_px",
        ],
        [
          ["flamegraph", P(), "-o", join(ws.root, "f.gif"), "--format", "gif"],
          "format",
          "Invalid flamegraph request: format",
        ],
        [
          ["flamegraph", P(), "-o", join(ws.root, "f.svg"), "--granularity", "module"],
          "granularity",
          "Invalid flamegraph request: granularity",
        ],
        [
          ["export", P(), "--format", "svg", "-o", join(ws.root, "x")],
          "format",
          "Invalid profile export request: format",
        ],
        [
          ["open", P(), "--metric", "heap", "--timeout", "1"],
          "metric",
          "Invalid profile export request: metric",
        ],
        [
          [
            "analyze",
            "compare",
            "--run",
            "run_x",
            "--baseline-scope",
            "a",
            "--candidate-scope",
            "b",
            "--threshold",
            "5%",
          ],
          "practical_threshold",
          "Invalid benchmark comparison request: practical_threshold",
        ],
        [
          [
            "analyze",
            "compare",
            "--run",
            "run_x",
            "--baseline-scope",
            "a",
            "--candidate-scope",
            "b",
            "--polarity",
            "faster",
          ],
          "polarity",
          "Invalid benchmark comparison request: polarity",
        ],
        [
          [
            "analyze",
            "compare",
            "--baseline-run",
            "run_a",
            "--candidate-run",
            "run_b",
            "--threshold",
            "0",
          ],
          "practical_threshold",
          "Invalid runs comparison request: practical_threshold",
        ],
        [
          ["runs", "logs", profile.run_id, "--stream", "stdin"],
          "stream",
          "Invalid run logs request: stream",
        ],
        [
          ["runs", "logs", profile.run_id, "--max-bytes", "0"],
          "max_bytes",
          "Invalid run logs request: max_bytes",
        ],
        [["run-sets", "show", ""], "run_set_id", "Invalid run set lookup request: run_set_id"],
      ];
      const answers = cliBatch(cases.map(([argv]) => [...argv, "--json"]));
      expect(answers.map((a) => [a.code, a.json.error.code, a.json.error.details.field])).toEqual(
        cases.map(([, field]) => [2, "INVALID_ARGUMENTS", field]),
      );
      for (const [i, [, , start]] of cases.entries())
        expect(answers[i]!.json.error.message).toStartWith(start);
    },
  );

  test("a page the workspace allows but one tool result cannot hold is the CLI's to " +
    "take", async () => {
    const [fromCli, fromMcp] = await Promise.all([
      cli(["analyze", "hotspots", P(), "--limit", "500", "--json"], { cwd: ws.root }),
      call(mcp.client, "analyze_hotspots", { run_or_artifact: P(), limit: 500 }),
    ]);
    expect(fromCli.code).toBe(0);
    expect(fromMcp.error).toMatchObject({ code: "INVALID_ARGUMENTS", details: { field: "limit" } });
    const tooMany = await cli(["analyze", "hotspots", P(), "--limit", "10001", "--json"], {
      cwd: ws.root,
    });
    expect(tooMany.json.error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { field: "limit" },
    });
  }, 60_000);

  test("valid requests are answered by both doors alike", async () => {
    const hot = await call(mcp.client, "analyze_hotspots", { run_or_artifact: P(), limit: 1 });
    const frame = hot.envelope.result.items[0].frame_id as string;
    const VALID: { tool: string; mcp: Record<string, unknown>; cli: string[] }[] = [
      {
        tool: "get_frame_callees",
        mcp: { run_or_artifact: P(), frame_id: frame, granularity: "line", limit: 3 },
        cli: ["stacks", "callees", P(), frame, "--granularity", "line", "--limit", "3"],
      },
      {
        tool: "diff_profiles",
        mcp: { base: profile.run_id, candidate: T(), sort: "total", normalize: true, limit: 5 },
        cli: ["diff", profile.run_id, T(), "--sort", "total", "--normalize", "--limit", "5"],
      },
      {
        tool: "summarize_runs",
        mcp: { run_ids: [profile.run_id, trace.run_id], hotspots: 2 },
        cli: ["summarize", profile.run_id, trace.run_id, "--hotspots", "2"],
      },
      {
        tool: "analyze_failures",
        mcp: { run_or_artifact: [P(), T()], limit: 5 },
        cli: ["analyze", "failures", P(), T(), "--limit", "5"],
      },
      {
        tool: "get_trace_window",
        mcp: { artifact_id: T(), start_ns: 0, end_ns: "999999999999999", limit: 4 },
        cli: ["trace", "window", T(), "--start", "0", "--end", "999999999999999", "--limit", "4"],
      },
      { tool: "list_runs", mcp: { limit: 1 }, cli: ["runs", "list", "--limit", "1"] },
    ];
    const fromCliAll = cliBatch(VALID.map((v) => [...v.cli, "--json"]));
    for (const [i, v] of VALID.entries()) {
      const [fromCli, fromMcp] = [fromCliAll[i]!, await call(mcp.client, v.tool, v.mcp)];
      // 1 is a negative answer (e.g. a diff whose evidence is unavailable), not a refusal.
      expect({ tool: v.tool, answered: fromCli.code === 0 || fromCli.code === 1 }).toEqual({
        tool: v.tool,
        answered: true,
      });
      expect({ tool: v.tool, ok: fromMcp.envelope.ok, error: fromMcp.error ?? null }).toEqual({
        tool: v.tool,
        ok: true,
        error: null,
      });
      expect({ tool: v.tool, error: fromCli.json?.error ?? null }).toEqual({
        tool: v.tool,
        error: null,
      });
      const { next_cursor: _a, ...cliResult } = fromCli.json;
      const { next_cursor: _b, ...mcpResult } = fromMcp.envelope.result;
      expect(cliResult).toEqual(mcpResult);
    }
  }, 120_000);
});
