/**
 * Read-only views of flameox.toml: its state and digest, the declared workloads with
 * their approval state and who declared them, one workload in full with its canonical form.
 */
import { FlameoxError } from "../../domain/errors.ts";
import type { WorkloadApproval } from "../../domain/workload/approval.ts";
import { describeDomain } from "../../domain/workload/parameter-domain.ts";
import {
  type CanonicalWorkload,
  canonicalWorkload,
  type ConfigDiagnostic,
  type WorkloadDefinition,
} from "../../domain/workload/project-config.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { workloadApproval } from "./workload-approval.ts";
import { readWorkloadFile, requireWorkloadConfig, WORKLOAD_FILE } from "./workload-file.ts";

export interface WorkloadSummary {
  name: string;
  workload_definition_id: string;
  description: string | null;
  executable: string;
  parameters: { name: string; domain: string; default: string | number | boolean | null }[];
  timeout_seconds: number;
  oracle: string | null;
  containment: "trusted_local" | "managed" | null;
  approval: WorkloadApproval;
}

export interface WorkloadConfigurationStatus {
  state: "missing" | "valid" | "invalid";
  path: string;
  configuration_id: string | null;
  workloads: WorkloadSummary[];
  diagnostics: ConfigDiagnostic[];
  next_tool: string;
}

export interface WorkloadDetail {
  configuration_id: string;
  workload: WorkloadDefinition;
  /** Exactly what the digest covers, and so what an approval approves. */
  canonical: CanonicalWorkload;
  approval: WorkloadApproval;
}

export function workloadConfigurationStatus(ws: Workspace): WorkloadConfigurationStatus {
  const file = readWorkloadFile(ws.paths.projectRoot);
  if (file.state === "missing")
    return {
      state: "missing",
      path: WORKLOAD_FILE,
      configuration_id: null,
      workloads: [],
      diagnostics: [],
      next_tool: "configure_workload",
    };
  if (file.state === "invalid") {
    return {
      state: "invalid",
      path: WORKLOAD_FILE,
      configuration_id: null,
      workloads: [],
      diagnostics: file.diagnostics.slice(0, 50),
      next_tool: "workload_configuration_status",
    };
  }
  const workloads = Object.values(file.config.workloads)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((w) => summarize(w, workloadApproval(ws, w)));
  return {
    state: "valid",
    path: WORKLOAD_FILE,
    configuration_id: file.config.configuration_id,
    workloads,
    diagnostics: [],
    next_tool: workloads.length > 0 ? "plan_capture" : "configure_workload",
  };
}

export function showWorkload(ws: Workspace, name: string): WorkloadDetail {
  const config = requireWorkloadConfig(ws.paths.projectRoot);
  const workload = config.workloads[name];
  if (!workload) {
    throw new FlameoxError(
      "WORKLOAD_NOT_FOUND",
      `Cannot find workload ${JSON.stringify(name)} in ${WORKLOAD_FILE}`,
      {
        details: { declared: Object.keys(config.workloads).sort() },
        remediation: ["List workloads with `flameox workload list`"],
      },
    );
  }
  return {
    configuration_id: config.configuration_id,
    workload,
    canonical: canonicalWorkload(workload),
    approval: workloadApproval(ws, workload),
  };
}

function summarize(definition: WorkloadDefinition, approval: WorkloadApproval): WorkloadSummary {
  return {
    name: definition.name,
    workload_definition_id: definition.workload_definition_id,
    description: definition.description,
    executable: definition.argv[0]!,
    parameters: Object.entries(definition.parameters).map(([name, domain]) => ({
      name,
      domain: describeDomain(domain),
      default: domain.default,
    })),
    timeout_seconds: definition.timeout_seconds,
    oracle: definition.oracle?.strength ?? null,
    containment: definition.containment,
    approval,
  };
}
