/**
 * The tool groups an MCP server publishes. Every tools/list entry costs an agent context
 * on every turn, so a server publishes the core group unless started with
 * `--tools GROUP,...` (or `all`): the first-run sequence and the drill-downs an agent uses
 * after every capture. A tool of a group that is not enabled is refused with
 * TOOL_NOT_ENABLED, naming the flag that enables it.
 *
 * No schemas and no SDK here: the server, the CLI and `flameox setup` read this module
 * before anything heavy loads.
 */
import { FlameoxError } from "../domain/errors.ts";

export interface ToolGroupDefinition {
  /** One line for `--help` and docs/mcp.md. */
  summary: string;
  /** Tool names, in no particular order (tools/list keeps the registry's order). */
  tools: readonly string[];
}

export const TOOL_GROUPS = {
  core: {
    summary:
      "the first run and the drill-downs: status, import, hotspots, " +
      "callers/callees/examples, trace window, profile diff, run-set comparison",
    tools: [
      "workspace_status",
      "initialize_workspace",
      "import_artifact",
      "analyze_hotspots",
      "get_frame_callers",
      "get_frame_callees",
      "get_stack_examples",
      "get_trace_window",
      "diff_profiles",
      "freeze_run_set",
      "compare_run_sets",
    ],
  },
  records: {
    summary: "runs, artifacts and evidence records; digests of runs; workspace validation",
    tools: [
      "list_runs",
      "get_run",
      "list_artifacts",
      "get_artifact",
      "get_evidence",
      "summarize_runs",
      "validate_workspace",
    ],
  },
  capture: {
    summary: "declared workloads and capture through the broker (plans a person approved)",
    tools: [
      "workload_configuration_status",
      "configure_workload",
      "list_capabilities",
      "plan_capture",
      "execute_capture_plan",
    ],
  },
  otel: {
    summary: "OTLP lifecycle observations: operation windows, transitions, gaps",
    tools: ["get_operation_window", "get_operation_transitions", "get_lifecycle_gaps"],
  },
  failures: {
    summary: "imported test reports: outcomes, failure clusters, flaky tests",
    tools: ["analyze_failures"],
  },
  coverage: {
    summary:
      "imported execution coverage: lines executed per file, newly and no longer executed " +
      "against a base run",
    tools: ["analyze_coverage"],
  },
  accelerator: {
    summary:
      "imported GPU traces: device streams' busy time, idle gaps with host activity, launch " +
      "latency; torch.profiler operators' CPU and GPU time",
    tools: ["analyze_accelerator_timeline", "analyze_operators"],
  },
  study: {
    summary: "measurements, recorded comparisons, experiments and scaling",
    tools: [
      "query_measurements",
      "record_comparison",
      "plan_experiment",
      "run_experiment",
      "get_experiment",
      "list_experiment_trials",
      "analyze_scaling",
    ],
  },
  investigations: {
    summary: "investigations, hypotheses, findings and recorded analyses",
    tools: [
      "create_investigation",
      "list_investigations",
      "get_investigation",
      "record_hypothesis",
      "get_hypothesis",
      "record_finding",
      "get_finding",
      "list_findings",
      "record_analysis",
    ],
  },
} as const satisfies Record<string, ToolGroupDefinition>;

export type ToolGroup = keyof typeof TOOL_GROUPS;

export const TOOL_GROUP_NAMES = Object.keys(TOOL_GROUPS) as ToolGroup[];

/** What a server publishes when started without `--tools`. */
export const DEFAULT_TOOL_GROUPS: readonly ToolGroup[] = ["core"];

const GROUP_OF_TOOL = new Map<string, ToolGroup>(
  TOOL_GROUP_NAMES.flatMap((group) =>
    TOOL_GROUPS[group].tools.map((tool) => [tool, group] as const),
  ),
);

/** The group a tool belongs to; undefined for a name no group lists. */
export function groupOfTool(name: string): ToolGroup | undefined {
  return GROUP_OF_TOOL.get(name);
}

/**
 * Parses `--tools`: comma-separated group names, or `all`. Missing or empty is the
 * default (core). An unknown name is INVALID_ARGUMENTS listing the valid ones.
 */
export function parseToolGroups(spec: string | undefined): ToolGroup[] {
  const names = (spec ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return [...DEFAULT_TOOL_GROUPS];
  if (names.includes("all")) return [...TOOL_GROUP_NAMES];
  const unknown = names.filter((n) => !(n in TOOL_GROUPS));
  if (unknown.length > 0) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Unknown tool group ${unknown.map((n) => JSON.stringify(n)).join(", ")}; expected all ` +
        `or a comma-separated list of ${TOOL_GROUP_NAMES.join(", ")}`,
      {
        details: { field: "tools", valid: ["all", ...TOOL_GROUP_NAMES] },
        remediation: [`Pass --tools with group names, e.g. --tools core,capture, or --tools all`],
      },
    );
  }
  // In the order groups are declared, each once.
  return TOOL_GROUP_NAMES.filter((g) => names.includes(g));
}

/**
 * `--tools` as a server argument: `all` stays `all` (so groups added later come too), else the
 * checked group names.
 */
export function toolsArgument(spec: string): string {
  const groups = parseToolGroups(spec);
  return spec.split(",").some((s) => s.trim().toLowerCase() === "all") ? "all" : groups.join(",");
}

/** The `--tools` value that enables `group` on top of `enabled`. */
export function toolsFlagEnabling(group: ToolGroup, enabled: readonly ToolGroup[]): string {
  return `--tools ${TOOL_GROUP_NAMES.filter((g) => g === group || enabled.includes(g)).join(",")}`;
}

/** TOOL_NOT_ENABLED for a call to a tool whose group the server was not started with. */
export function toolNotEnabled(
  name: string,
  group: ToolGroup,
  enabled: readonly ToolGroup[],
): FlameoxError {
  const flag = toolsFlagEnabling(group, enabled);
  return new FlameoxError(
    "TOOL_NOT_ENABLED",
    `${name} is in the tool group "${group}", which this server does not publish ` +
      `(enabled: ${enabled.join(", ")}); start it with ${flag} (or --tools all)`,
    {
      details: { tool: name, group, enabled_groups: [...enabled], flag },
      remediation: [
        `Restart the flameox MCP server with \`flameox mcp serve ${flag}\` (in the client's ` +
          `server arguments, or \`flameox setup --tools ${flag.slice("--tools ".length)}\`)`,
      ],
    },
  );
}
