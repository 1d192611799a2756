/**
 * Malformed arguments to every tool come back as isError results with INVALID_ARGUMENTS
 * naming the offending field, and no tool's input schema accepts a shell string, argv,
 * environment or SQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tempWorkspace } from "../helpers.ts";
import { call, connect, type Connected, type Json } from "./mcp-helpers.ts";

const ARTIFACT = `sha256:${"a".repeat(64)}`;

/** For each tool: [arguments, the field the error must name]. */
const INVALID: Record<string, [Record<string, unknown>, string][]> = {
  workspace_status: [[{ verbose: true }, "verbose"]],
  query_measurements: [
    [{ limit: 0 }, "limit"],
    [{ name_prefix: "" }, "name_prefix"],
    [{ include_warmups: "yes" }, "include_warmups"],
    [{ sql: "SELECT 1" }, "sql"],
  ],
  freeze_run_set: [
    [{ run_ids: "run_1" }, "run_ids"],
    [{ members: "all" }, "members"],
    [{ selection: 5, run_ids: ["run_1"] }, "selection"],
  ],
  compare_run_sets: [
    [
      { candidate_run_set_id: "rs_b", metric: "wall_time", polarity: "lower_is_better" },
      "baseline_run_set_id",
    ],
    [
      {
        baseline_run_set_id: "rs_a",
        candidate_run_set_id: "rs_b",
        metric: "wall_time",
        polarity: "faster",
      },
      "polarity",
    ],
  ],
  record_comparison: [
    [
      { baseline_run_set_id: "rs_a", candidate_run_set_id: "rs_b", polarity: "lower_is_better" },
      "metric",
    ],
  ],
  plan_experiment: [
    [{}, "experiment_name"],
    [{ experiment_name: "e", argv: ["sh"] }, "argv"],
  ],
  run_experiment: [
    [{}, "plan_id"],
    [{ plan_id: 5 }, "plan_id"],
  ],
  get_experiment: [[{}, "experiment_id"]],
  list_experiment_trials: [[{ experiment_id: "exp_1", limit: 0 }, "limit"]],
  analyze_scaling: [[{ experiment_id: 3 }, "experiment_id"]],
  create_investigation: [
    [{}, "title"],
    [{ title: "t", status: "paused" }, "status"],
  ],
  list_investigations: [
    [{ limit: 0 }, "limit"],
    [{ sql: "SELECT 1" }, "sql"],
  ],
  get_investigation: [[{}, "investigation_id"]],
  record_hypothesis: [
    [{ investigation_id: "inv_1" }, "statement"],
    [{ statement: "s", expected_revision: 0 }, "expected_revision"],
  ],
  get_hypothesis: [
    [{}, "hypothesis_id"],
    [{ hypothesis_id: "h", revision: 1.5 }, "revision"],
  ],
  record_finding: [
    [{ statement: "s", kind: "speedup", evidence_level: "observed" }, "kind"],
    [{ statement: "s", kind: "regression", evidence_level: "guessed" }, "evidence_level"],
    [
      { statement: "s", kind: "regression", evidence_level: "observed", assessment: "proven" },
      "assessment",
    ],
  ],
  get_finding: [[{}, "finding_id"]],
  list_findings: [[{ limit: 1001 }, "limit"]],
  record_analysis: [
    [{ run_or_artifact: "run_1" }, "recipe"],
    [{ recipe: "flamegraph", run_or_artifact: "run_1" }, "recipe"],
    [{ recipe: "cpu_hotspots", run_or_artifact: "run_1", sql: "x" }, "sql"],
  ],
  initialize_workspace: [
    [{ path: "/elsewhere" }, "path"],
    [{ project_root: "/x" }, "project_root"],
  ],
  import_artifact: [
    [{}, "path"],
    [{ path: "" }, "path"],
    [{ path: "a.json", source_root: "home" }, "source_root"],
    [{ path: "a.json", sensitivity: "public" }, "sensitivity"],
    [{ path: "a.json", command: "rm -rf /" }, "command"],
  ],
  list_runs: [
    [{ limit: 0 }, "limit"],
    [{ limit: 201 }, "limit"],
    [{ limit: 1.5 }, "limit"],
    [{ cursor: 7 }, "cursor"],
  ],
  get_run: [
    [{}, "run_id"],
    [{ run_id: 42 }, "run_id"],
  ],
  list_artifacts: [
    [{ limit: "ten" }, "limit"],
    [{ filter: "x" }, "filter"],
  ],
  get_artifact: [
    [{}, "artifact_id"],
    [{ artifact_id: "x".repeat(300) }, "artifact_id"],
  ],
  analyze_hotspots: [
    [{}, "run_or_artifact"],
    [{ run_or_artifact: ARTIFACT, metric: "memory" }, "metric"],
    [{ run_or_artifact: ARTIFACT, sql: "SELECT 1" }, "sql"],
    [{ run_or_artifact: ARTIFACT, granularity: "module" }, "granularity"],
    [{ run_or_artifact: ARTIFACT, exclude_pseudo_frames: "yes" }, "exclude_pseudo_frames"],
  ],
  get_frame_callers: [
    [{ run_or_artifact: ARTIFACT }, "frame_id"],
    [{ run_or_artifact: ARTIFACT, frame_id: "f", granularity: "file" }, "granularity"],
  ],
  diff_profiles: [
    [{ base: ARTIFACT }, "candidate"],
    [{ base: ARTIFACT, candidate: ARTIFACT, sort: "biggest" }, "sort"],
    [{ base: ARTIFACT, candidate: ARTIFACT, sql: "SELECT 1" }, "sql"],
  ],
  get_frame_callees: [[{ run_or_artifact: ARTIFACT, frame_id: "f", limit: -1 }, "limit"]],
  get_stack_examples: [[{ frame_id: "f" }, "run_or_artifact"]],
  get_trace_window: [
    [{ artifact_id: ARTIFACT, start_ns: "1.5", end_ns: "2" }, "start_ns"],
    [{ artifact_id: ARTIFACT, start_ns: "0", end_ns: 2 ** 60 }, "end_ns"],
    [{ artifact_id: ARTIFACT, start_ns: "0", end_ns: "10", limit: 1001 }, "limit"],
    [{ artifact_id: ARTIFACT, start_ns: "0" }, "end_ns"],
  ],
  get_operation_window: [
    [{ artifact_id: ARTIFACT, start_ns: "-1", end_ns: "2" }, "start_ns"],
    [{ artifact_id: ARTIFACT, start_ns: "0", end_ns: "2", trace_id: "xyz" }, "trace_id"],
  ],
  get_operation_transitions: [
    [{ artifact_id: ARTIFACT, max_depth: 0 }, "max_depth"],
    [{}, "artifact_id"],
  ],
  get_lifecycle_gaps: [[{ artifact_id: ARTIFACT, limit: 0 }, "limit"]],
  analyze_failures: [
    [{}, "run_or_artifact"],
    [{ run_or_artifact: [] }, "run_or_artifact"],
    [{ run_or_artifact: ARTIFACT, limit: 0 }, "limit"],
    [{ run_or_artifact: ARTIFACT, sql: "SELECT 1" }, "sql"],
  ],
  analyze_coverage: [
    [{}, "run_or_artifact"],
    [{ run_or_artifact: [ARTIFACT] }, "run_or_artifact"],
    [{ run_or_artifact: ARTIFACT, base: "" }, "base"],
    [{ run_or_artifact: ARTIFACT, limit: 0 }, "limit"],
    [{ run_or_artifact: ARTIFACT, sql: "SELECT 1" }, "sql"],
  ],
  analyze_accelerator_timeline: [
    [{}, "run_or_artifact"],
    [{ run_or_artifact: ARTIFACT, min_gap_ns: -1 }, "min_gap_ns"],
    [{ run_or_artifact: ARTIFACT, min_gap_ns: "1ms" }, "min_gap_ns"],
    [{ run_or_artifact: ARTIFACT, limit: 0 }, "limit"],
    [{ run_or_artifact: ARTIFACT, sql: "SELECT 1" }, "sql"],
  ],
  analyze_operators: [
    [{}, "run_or_artifact"],
    [{ run_or_artifact: ARTIFACT, limit: 1001 }, "limit"],
    [{ run_or_artifact: ARTIFACT, sql: "SELECT 1" }, "sql"],
  ],
  validate_workspace: [[{ mode: "repair" }, "mode"]],
  get_evidence: [
    [{ ref_type: "finding", ref_id: "x" }, "ref_type"],
    [{ ref_type: "run" }, "ref_id"],
  ],
  summarize_runs: [
    [{}, "run_ids"],
    [{ run_ids: [] }, "run_ids"],
    [{ run_ids: ["run_1"], hotspots: 26 }, "hotspots"],
    [{ run_ids: ["run_1"], measurement_groups: 0 }, "measurement_groups"],
    [{ run_ids: ["run_1"], sql: "SELECT 1" }, "sql"],
    [{ run_ids: ["run_1", "run_2"], compare: "yes" }, "compare"],
    [{ run_ids: ["run_1", "run_2"], compare: true, functions: 26 }, "functions"],
  ],
  workload_configuration_status: [[{ path: "flameox.toml" }, "path"]],
  configure_workload: [
    [{ operation: "create", argv: ["true"] }, "name"],
    [{ name: "Bad Name", operation: "create", argv: ["true"] }, "name"],
    [{ name: "w", operation: "upsert", argv: ["true"] }, "operation"],
    [{ name: "w", operation: "create", argv: [] }, "argv"],
    [{ name: "w", operation: "create", argv: ["true"], shell: true }, "shell"],
  ],
  list_capabilities: [
    [{ mode: "aggressive" }, "mode"],
    [{ adapter: "strace" }, "adapter"],
  ],
  plan_capture: [
    [{ workload: "w" }, "adapter"],
    [{ adapter: "command" }, "workload"],
    [{ adapter: "command", workload: "w", cwd: "/" }, "cwd"],
    [{ adapter: "command", workload: "w", argv: ["id"] }, "argv"],
    [{ adapter: "command", workload: "w", containment: "none" }, "containment"],
  ],
  execute_capture_plan: [
    [{}, "plan_id"],
    [{ plan_id: "a", argv: ["id"] }, "argv"],
  ],
};

/**
 * configure_workload takes a workload *declaration* (the flameox.toml fields, argv and
 * environment included): it validates and writes it and never runs anything. Execution
 * only ever names a declared workload (plan_capture), so these are the only exceptions.
 */
const DECLARATION_FIELDS = new Set([
  "configure_workload.argv",
  "configure_workload.environment",
  "configure_workload.oracle.argv",
]);

const FORBIDDEN =
  /^(argv|args|command|cmd|shell|env|environment|sql|query|script|exec|executable)$/i;

let ws: { root: string; cleanup: () => void };
let mcp: Connected;

beforeAll(async () => {
  ws = await tempWorkspace();
  mcp = await connect(ws.root);
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

describe("mcp argument validation", () => {
  test("every tool has invalid-argument cases here", async () => {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name).sort();
    expect(Object.keys(INVALID).sort()).toEqual(names);
  });

  for (const [tool, cases] of Object.entries(INVALID)) {
    test(
      `${tool} answers malformed arguments with INVALID_ARGUMENTS naming the ` + `field`,
      async () => {
        for (const [args, field] of cases) {
          const answer = await call(mcp.client, tool, args);
          expect(answer.isError).toBe(true);
          expect(answer.envelope).toMatchObject({ ok: false, result: null });
          expect(answer.error.code).toBe("INVALID_ARGUMENTS");
          expect(answer.error.details.field).toBe(field);
          expect(answer.error.message).toContain(field);
          expect(answer.text).toContain("INVALID_ARGUMENTS");
        }
      },
    );
  }

  test("a semantic argument error from the service also names its field", async () => {
    const answer = await call(mcp.client, "get_trace_window", {
      artifact_id: ARTIFACT,
      start_ns: "10",
      end_ns: "5",
    });
    expect(answer.isError).toBe(true);
    // Missing artifact wins over the inverted window; either way the error is typed.
    expect(["INVALID_ARGUMENTS", "ARTIFACT_NOT_FOUND"]).toContain(answer.error.code);
    const evidence = await call(mcp.client, "get_evidence", {
      ref_type: "generation",
      ref_id: "not-a-generation",
    });
    expect(evidence.error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { field: "ref_id" },
    });
  });

  test("no tool input schema accepts a shell string, argv, environment or SQL", async () => {
    const offending: string[] = [];
    const walk = (schema: Json, where: string) => {
      if (!schema || typeof schema !== "object") return;
      for (const [name, sub] of Object.entries<Json>(schema.properties ?? {})) {
        if (FORBIDDEN.test(name) && !DECLARATION_FIELDS.has(`${where}.${name}`))
          offending.push(`${where}.${name}`);
        walk(sub, `${where}.${name}`);
      }
      for (const key of ["items", "additionalProperties"])
        if (typeof schema[key] === "object") walk(schema[key], `${where}[]`);
      for (const key of ["anyOf", "oneOf", "allOf"])
        for (const sub of schema[key] ?? []) walk(sub, where);
    };
    const tools = (await mcp.client.listTools()).tools;
    for (const tool of tools) {
      walk(tool.inputSchema, tool.name);
      // Closed objects: an unknown key such as `command` can never slip through.
      expect((tool.inputSchema as Json).additionalProperties).toBe(false);
    }
    expect(offending).toEqual([]);
  });
});
