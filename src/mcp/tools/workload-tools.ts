/**
 * workload_configuration_status and configure_workload: the declared workloads of
 * flameox.toml and their approval. configure_workload proposes; only a person approves,
 * on the CLI. No tool here, or anywhere in the server, changes an approval.
 */
import {
  answerWorkloadConfiguration,
  WorkloadConfigurationRequest,
} from "../../application/requests/capture-requests.ts";
import {
  ConfigureWorkloadResult,
  WorkloadConfigurationStatus,
} from "../schemas/capture-results.ts";
import { NoArguments } from "../schemas/inputs.ts";
import { defineTool, READ_ONLY, type ToolAnnotations } from "../tool.ts";

/**
 * Replace overwrites a declaration (perhaps a person's) and revokes its approval: destructive, and
 * not idempotent.
 */
const PROPOSE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

export const workloadConfigurationStatus = defineTool({
  name: "workload_configuration_status",
  title: "Workload configuration status",
  description:
    "State of flameox.toml at the project root (missing | valid | invalid), its " +
    "configuration_id digest, the declared workloads " +
    "(name, workload_definition_id, executable, parameter domains, timeout, approval state: " +
    "approved | unapproved | stale, and who " +
    "declared it) and diagnostics with exact key paths. Only approved workloads can be " +
    "planned or run; approval.approve_command is " +
    "the CLI command a person runs to approve one. Start here before capturing. Next: " +
    "plan_capture with an approved workload.",
  annotations: READ_ONLY,
  input: NoArguments,
  result: WorkloadConfigurationStatus,
  run: async (_args, { session }) => (await (await session.open()).capture()).workloadStatus(),
  summarize: (r) =>
    r.state === "valid"
      ? `flameox.toml valid (${r.configuration_id}): ` +
        `${r.workloads.map((w) => w.name).join(", ") || "no workloads"}; next ${r.next_tool}`
      : `flameox.toml ${r.state}` +
        `${r.diagnostics[0] ? `: ${r.diagnostics[0].path}: ${r.diagnostics[0].message}` : ""}; ` +
        `next ${r.next_tool}`,
});

export const configureWorkload = defineTool({
  name: "configure_workload",
  title: "Configure workload",
  description:
    "Proposes one workload declaration in flameox.toml; never runs it and never makes it " +
    "runnable. What it writes is unapproved " +
    "until a person reviews and approves it on the CLI (`flameox workload approve NAME`, " +
    "named in approval.approve_command); " +
    "replacing an approved workload leaves it unapproved. operation create adds it " +
    "(repeating an identical definition changes " +
    "nothing); replace overwrites it and needs expected_configuration_id from " +
    "workload_configuration_status (a stale id is " +
    "REVISION_CONFLICT). argv[0] is a project path (with a slash) or a tool on PATH; {name} " +
    "tokens in argv take declared parameters; " +
    "{{ is a literal brace. Validated strictly before writing; comments and other entries of " +
    "the file are kept. " +
    "Next: ask the user to approve it, then plan_capture.",
  annotations: PROPOSE,
  input: WorkloadConfigurationRequest,
  result: ConfigureWorkloadResult,
  run: async (request, { session }) =>
    answerWorkloadConfiguration(await (await session.open()).capture(), request),
  summarize: (r) =>
    `${r.changed ? `${r.operation}d` : "unchanged"} workload ${r.name} ` +
    `(${r.workload_definition_id}); configuration ${r.configuration_id}; ` +
    (r.approval.state === "approved"
      ? "approved"
      : `${r.approval.state}: it cannot run until a person runs \`${r.approval.approve_command}\``),
});
