/**
 * The reviewable projection of a plan: what will run, bound how, under which limits and
 * containment.
 */
import { realpathSync } from "node:fs";
import { relative } from "node:path";
import type { CommandPart } from "../../adapters/capture/capture-adapter.ts";
import type { ResolvedExecutable } from "../../domain/capture.ts";
import type { IssuedPlan } from "../../broker/plan-registry.ts";
import { materialize } from "./capabilities.ts";
import type { CapturePlan, ExecutableView, PlanPreview } from "./capture-plan.ts";

/** Output paths are shown as `<output>/…`: the real directory exists only once the run does. */
export const OUTPUT_PLACEHOLDER = "<output>";

/**
 * The command as recorded and shown: output paths as `<output>/…`, paths inside the project as
 * `./…` (no host paths).
 */
export function displayCommand(parts: CommandPart[], projectRoot: string): string[] {
  const prefixes = [...new Set([projectRoot, realpathSync(projectRoot)])].map(
    (root) => `${root.replace(/\/+$/, "")}/`,
  );
  return materialize(parts, OUTPUT_PLACEHOLDER).map((item) =>
    prefixes.reduce((text, prefix) => text.split(prefix).join("./"), item),
  );
}

export function executableView(
  executable: ResolvedExecutable,
  projectRoot: string,
): ExecutableView {
  const path =
    executable.trust === "project_bound" ? relative(projectRoot, executable.path) : executable.path;
  return {
    requested: executable.requested,
    trust: executable.trust,
    path,
    sha256: executable.sha256,
  };
}

export function executablesOf(plan: CapturePlan, projectRoot: string): ExecutableView[] {
  const all = [
    plan.executable,
    ...Object.values(plan.tools),
    ...(plan.oracle ? [plan.oracle.executable] : []),
    ...(plan.bwrap ? [plan.bwrap] : []),
  ];
  const seen = new Set<string>();
  return all
    .filter((e) => !seen.has(e.path) && seen.add(e.path))
    .map((e) => executableView(e, projectRoot));
}

export function relativeCwd(plan: CapturePlan): string {
  return plan.workload.cwd;
}

export function toPreview(plan: CapturePlan, issued: IssuedPlan, projectRoot: string): PlanPreview {
  return {
    ...issued,
    request_digest: plan.request_digest,
    adapter: {
      name: plan.adapter.name,
      version: plan.adapter.version,
      status: plan.adapter.capability.status,
      options: plan.adapter.options,
    },
    workload: {
      name: plan.workload.name,
      workload_definition_id: plan.workload.workload_definition_id,
      workload_instance_id: plan.workload.workload_instance_id,
      parameters: plan.workload.parameters,
    },
    configuration_id: plan.configuration_id,
    command: {
      argv: displayCommand(plan.command, projectRoot),
      cwd: relativeCwd(plan),
      environment_names: Object.keys(plan.childEnv).sort(),
    },
    executables: executablesOf(plan, projectRoot),
    limits: plan.limits,
    containment: plan.containment,
    source: {
      source_state_id: plan.source.source_state_id,
      identity_quality: plan.source.identity_quality,
      head_commit: plan.source.head_commit,
    },
    environment: {
      environment_id: plan.environment.environment_id,
      identity_quality: plan.environment.identity_quality,
    },
    limitations: plan.limitations,
  };
}
