/**
 * Result schemas of the workload and capture tools, mirroring the application models (checked in
 * capture-checks.ts).
 */
import { type } from "arktype";
import { Limitation } from "./common.ts";
import { runStatusFields } from "./records.ts";

const count = "number.integer >= 0";
const scalar = "string | number | boolean";
const options = type({ "[string]": "string | number | boolean | null" });

const Diagnostic = type({ path: "string", message: "string" });

/** Approval of a workload's current canonical digest; only a person on the CLI changes it. */
export const WorkloadApproval = type({
  state: "'approved' | 'unapproved' | 'stale'",
  workload_definition_id: "string",
  approved_workload_definition_id: "string | null",
  approved_at: "string | null",
  approved_by: "string | null",
  declared_by: "'mcp_client' | 'cli' | 'project_file'",
  approve_command: "string | null",
});

export const WorkloadConfigurationStatus = type({
  state: "'missing' | 'valid' | 'invalid'",
  path: "string",
  configuration_id: "string | null",
  workloads: type({
    name: "string",
    workload_definition_id: "string",
    description: "string | null",
    executable: "string",
    parameters: type({ name: "string", domain: "string", default: `${scalar} | null` }).array(),
    timeout_seconds: "number",
    oracle: "string | null",
    containment: "'trusted_local' | 'managed' | null",
    approval: WorkloadApproval,
  }).array(),
  diagnostics: Diagnostic.array(),
  next_tool: "string",
});

export const ConfigureWorkloadResult = type({
  name: "string",
  operation: "'create' | 'replace'",
  changed: "boolean",
  path: "string",
  previous_configuration_id: "string | null",
  configuration_id: "string",
  workload_definition_id: "string",
  approval: WorkloadApproval,
});

export const CapabilityReport = type({
  name: "string",
  kind: "'capture_adapter' | 'containment'",
  adapter_version: "string | null",
  status: "'available' | 'absent' | 'incompatible' | 'permission_required' | 'unknown'",
  reason: "string",
  probe: "'passive' | 'active'",
  probed_at: "string",
  tools: type({
    name: "string",
    path: "string | null",
    sha256: "string | null",
    version: "string | null",
  }).array(),
  features: options,
  limitations: Limitation.array(),
});

export const CapabilitiesResult = type({
  probe: "'passive' | 'active_cached' | 'active_refresh'",
  probed_at: "string",
  adapters: CapabilityReport.array(),
  containment: CapabilityReport,
});

export const ContainmentReport = type({
  mode: "'trusted_local' | 'managed'",
  state: "'uncontained' | 'contained'",
  network: "'allowed' | 'denied'",
  backend: "'bubblewrap' | null",
  filesystem: "'host' | 'read_only_root'",
  writable_roots: "string[]",
  limitations: Limitation.array(),
});

const Limits = type({
  deadline_seconds: "number",
  max_output_bytes: count,
  sampling_interval_ms: count,
  max_memory_bytes: count,
  min_free_bytes: count,
  grace_ms: count,
});

const WorkloadRef = type({
  name: "string",
  workload_definition_id: "string",
  workload_instance_id: "string",
  parameters: type({ "[string]": scalar }),
});

export const PlanPreview = type({
  plan_id: "string",
  expires_at: "string",
  ttl_seconds: count,
  request_digest: "string",
  adapter: { name: "string", version: "string", status: "string", options },
  workload: WorkloadRef,
  configuration_id: "string",
  command: { argv: "string[]", cwd: "string", environment_names: "string[]" },
  executables: type({
    requested: "string",
    trust: "'project_bound' | 'host_tool' | 'exact_path'",
    path: "string",
    sha256: "string",
  }).array(),
  limits: Limits,
  containment: ContainmentReport,
  source: { source_state_id: "string", identity_quality: "string", head_commit: "string | null" },
  environment: { environment_id: "string", identity_quality: "string" },
  limitations: Limitation.array(),
});

const Termination = type({
  kind: "'exited' | 'signaled' | 'timeout' | 'cancelled' | 'policy'",
  exit_code: "number | null",
  signal: "string | null",
  policy: type({ metric: "string", limit: "number", observed: "number" }).or("null"),
  signals_sent: type({
    signal: "'SIGTERM' | 'SIGKILL'",
    target: "'group' | 'descendant'",
    reason: "string",
    at_ms: "number",
    "processes?": count,
  }).array(),
  wall_ms: "number",
  escaped_descendants_killed: count,
  "escaped_descendants_survived?": count,
  "descendant_tracking?": "'subreaper' | 'session_scan' | null",
});

const Resources = type({
  sampling_interval_ms: count,
  samples: count,
  peak_rss_bytes: "number | null",
  peak_rss_backend: "'procfs_tree_polling'",
  leader_max_rss_bytes: "number | null",
  minimum_free_bytes: "number | null",
  free_bytes_backend: "'statfs'",
  staging_growth_bytes: "number | null",
  max_processes_observed: count,
  sampler_cpu_ms: "number",
  writable_root_growth: type({
    path: "string",
    growth_bytes: "number | null",
    reason: "string | null",
  }).array(),
  unavailable_metrics: type({ metric: "string", reason: "string" }).array(),
});

export const CaptureResult = type({
  run_id: "string",
  adapter: { name: "string", version: "string", options },
  workload: WorkloadRef,
  ...runStatusFields,
  termination: Termination,
  resources: Resources,
  containment: ContainmentReport,
  artifacts: type({
    artifact_id: "string",
    registration_id: "string",
    display_name: "string",
    kind: "string",
    role: "string",
    media_type: "string",
    byte_length: count,
    partial: "boolean",
    produced_bytes: "number | null",
    deduplicated: "boolean",
  }).array(),
  extractions: type({
    artifact_id: "string",
    status: "'published' | 'failed' | 'cancelled'",
    adapter: "string",
    generation_id: "string | null",
    corpus_commit_id: "string | null",
    tables: "Record<string, number>",
    error: type({ code: "string", message: "string" }).or("null"),
  }).array(),
  validation: type({
    strength: "string",
    status: "string",
    exit_code: "number | null",
    wall_ms: "number | null",
    artifact_ids: "string[]",
    reason: "string | null",
    receipt: "Record<string, unknown> | null",
  }).or("null"),
  summary: "Record<string, unknown> | null",
  source: { source_state_id: "string", identity_quality: "string" },
  environment: { environment_id: "string", identity_quality: "string" },
  limitations: Limitation.array(),
  next_tool: "string | null",
});
