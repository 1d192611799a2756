/** workload_configuration_status and configure_workload: the declared workloads of flameox.toml. */
import { ConfigureWorkloadInput } from "../schemas/capture-inputs.ts";
import { ConfigureWorkloadResult, WorkloadConfigurationStatus } from "../schemas/capture-results.ts";
import { NoArguments } from "../schemas/inputs.ts";
import { CONFIGURE, defineTool, READ_ONLY } from "../tool.ts";

export const workloadConfigurationStatus = defineTool({
  name: "workload_configuration_status",
  title: "Workload configuration status",
  description:
    "State of flameox.toml at the project root (missing | valid | invalid), its configuration_id digest, the declared workloads " +
    "(name, workload_definition_id, executable, parameter domains, timeout) and diagnostics with exact key paths. Start here before " +
    "capturing. Next: configure_workload to declare one, or plan_capture with a workload name.",
  annotations: READ_ONLY,
  input: NoArguments,
  result: WorkloadConfigurationStatus,
  run: async (_args, { session }) => (await (await session.open()).capture()).workloadStatus(),
  summarize: (r) =>
    r.state === "valid"
      ? `flameox.toml valid (${r.configuration_id}): ${r.workloads.map((w) => w.name).join(", ") || "no workloads"}; next ${r.next_tool}`
      : `flameox.toml ${r.state}${r.diagnostics[0] ? `: ${r.diagnostics[0].path}: ${r.diagnostics[0].message}` : ""}; next ${r.next_tool}`,
});

export const configureWorkload = defineTool({
  name: "configure_workload",
  title: "Configure workload",
  description:
    "Declares one workload in flameox.toml; never runs it. operation create adds it (repeating an identical definition is a no-op); " +
    "replace changes it and needs expected_configuration_id from workload_configuration_status (a stale id is REVISION_CONFLICT). " +
    "argv[0] is a project path (with a slash) or a tool on PATH; {name} tokens in argv take declared parameters; {{ is a literal brace. " +
    "Validated strictly before writing; comments and other entries of the file are kept. Next: plan_capture.",
  annotations: CONFIGURE,
  input: ConfigureWorkloadInput,
  result: ConfigureWorkloadResult,
  run: async (args, { session }) => {
    const { name, operation, expected_configuration_id, ...spec } = args;
    return (await (await session.open()).capture()).configureWorkload({ name, operation, expected_configuration_id, spec, source: "agent" });
  },
  summarize: (r) => `${r.changed ? `${r.operation}d` : "unchanged"} workload ${r.name} (${r.workload_definition_id}); configuration ${r.configuration_id}`,
});
