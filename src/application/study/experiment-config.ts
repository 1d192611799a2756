/**
 * Loads one declared experiment and its workload from flameox.toml (through the same flameox.toml
 * reader as workloads, so both see one file the same way).
 */
import { FlameoxError } from "../../domain/errors.ts";
import {
  normalizeExperiment,
  type ExperimentDefinition,
} from "../../domain/experiment/experiment-definition.ts";
import type { WorkloadDefinition } from "../../domain/workload/project-config.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { requireWorkloadConfig } from "../capture/workload-file.ts";
import type { ExperimentProtocol } from "./experiment-protocol.ts";

export interface LoadedExperiment {
  configuration_id: string;
  definition: ExperimentDefinition;
  workload: WorkloadDefinition;
}

export function declaredExperiments(projectRoot: string): string[] {
  const config = requireWorkloadConfig(projectRoot);
  return Object.keys(
    (config.document.experiments as Record<string, unknown> | undefined) ?? {},
  ).sort();
}

export function loadExperiment(projectRoot: string, name: string): LoadedExperiment {
  const config = requireWorkloadConfig(projectRoot);
  const raw = (config.document.experiments as Record<string, unknown> | undefined)?.[name];
  if (raw === undefined) {
    throw new FlameoxError(
      "RECORD_NOT_FOUND",
      `Cannot find experiment ${JSON.stringify(name)} in flameox.toml`,
      {
        remediation: ["Declare it as [experiments.NAME] in flameox.toml"],
        details: { declared: declaredExperiments(projectRoot) },
      },
    );
  }
  const normalized = normalizeExperiment(name, raw, config.workloads);
  if (!normalized.ok) {
    const shown = normalized.diagnostics
      .slice(0, 5)
      .map((d) => `${d.path}: ${d.message}`)
      .join("; ");
    throw new FlameoxError("EXPERIMENT_INVALID", `Invalid experiment ${name}: ${shown}`, {
      details: { diagnostics: normalized.diagnostics.slice(0, 50) },
    });
  }
  return {
    configuration_id: config.configuration_id,
    definition: normalized.definition,
    workload: config.workloads[normalized.definition.workload]!,
  };
}

/** The workload file must still say what the plan bound; an edit after planning refuses the run. */
export function ensureProjectUnchanged(ws: Workspace, protocol: ExperimentProtocol): void {
  const now = loadExperiment(ws.paths.projectRoot, protocol.name);
  if (
    now.definition.experiment_design_id !== protocol.definition.experiment_design_id ||
    now.workload.workload_definition_id !== protocol.definition.workload_definition_id
  ) {
    throw new FlameoxError(
      "WORKLOAD_CHANGED",
      `Cannot run experiment ${protocol.name}: its definition or workload changed after planning`,
      {
        remediation: ["Plan the experiment again"],
      },
    );
  }
}
