/**
 * Rechecks every binding of a consumed plan just before its process starts: workspace,
 * workload definition and its approval, workspace policy, child environment, executables (path,
 * target
 * and digest; never a new search), the adapter's capability (probed again for
 * permission-sensitive adapters), containment, working directory and source state.
 * Each drift has its own error code; nothing starts on a stale plan.
 */
import { readFileSync } from "node:fs";
import { captureAdapterByName } from "../../adapters/capture/registry.ts";
import { workloadEnvironment } from "../../broker/child-environment.ts";
import { revalidateExecutable } from "../../broker/executable-resolver.ts";
import { digestOf } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { parseConfig } from "../../storage/workspace-config.ts";
import { capabilityRefusal } from "./capability-refusal.ts";
import type { CaptureContext } from "./capture-context.ts";
import type { CapturePlan } from "./capture-plan.ts";
import { projectDirectory } from "./project-paths.ts";
import { sourceIdentity } from "./source-identity.ts";
import { requireApproved } from "./workload-approval.ts";
import { requireWorkloadConfig } from "./workload-file.ts";

const replan = ["Plan the capture again to bind the current state"];

export async function recheckPlan(ctx: CaptureContext, plan: CapturePlan): Promise<void> {
  const { ws } = ctx;
  if (plan.workspace_id !== ws.identity.workspace_id) {
    throw new FlameoxError(
      "INVALID_CAPTURE_PLAN",
      "Cannot execute the capture plan: it was made for another workspace",
      { remediation: replan },
    );
  }
  const config = requireWorkloadConfig(ws.paths.projectRoot);
  const definition = config.workloads[plan.workload.name];
  if (!definition || definition.workload_definition_id !== plan.workload.workload_definition_id) {
    throw new FlameoxError(
      "WORKLOAD_CHANGED",
      `Cannot execute the capture plan: ` +
        `workload ${plan.workload.name} ${definition ? "was edited" : "was removed"} since it ` +
        `was planned`,
      {
        details: {
          planned: plan.workload.workload_definition_id,
          current: definition?.workload_definition_id ?? null,
        },
        remediation: replan,
      },
    );
  }
  // Approval is read again now: a plan made before its approval was revoked does not run.
  requireApproved(ws, definition);
  const policy = parseConfig(readFileSync(ws.paths.configToml, "utf8"));
  if (digestOf(policy) !== plan.policy_digest) {
    throw new FlameoxError(
      "CONFIGURATION_CHANGED",
      "Cannot execute the capture plan: the workspace policy (.diagnostics/config.toml) " +
        "changed since it was planned",
      { remediation: replan },
    );
  }
  const env = workloadEnvironment(policy.execution, process.env, {
    ...plan.workload.environment,
    ...plan.adapterEnvironment,
  });
  if (digestOf(env) !== plan.environmentDigest) {
    throw new FlameoxError(
      "CONFIGURATION_CHANGED",
      "Cannot execute the capture plan: the child environment flameox would build changed " +
        "since it was planned",
      { remediation: replan },
    );
  }
  for (const executable of [
    plan.executable,
    ...Object.values(plan.tools),
    ...(plan.oracle ? [plan.oracle.executable] : []),
    ...(plan.bwrap ? [plan.bwrap] : []),
  ]) {
    revalidateExecutable(executable, ws.paths.projectRoot);
  }
  if (projectDirectory(ws.paths.projectRoot, plan.workload.cwd) !== plan.cwd) {
    throw new FlameoxError(
      "EXECUTION_REFUSED",
      `Cannot execute the capture plan: the working directory ${plan.workload.cwd} now ` +
        `resolves elsewhere`,
      { remediation: replan },
    );
  }
  await recheckCapability(ctx, plan);
  const source = await sourceIdentity(ws.paths.projectRoot, policy.execution.workload_path);
  if (source.source_state_id !== plan.source.source_state_id) {
    throw new FlameoxError(
      "SOURCE_CHANGED",
      "Cannot execute the capture plan: the project source (git HEAD, tracked changes or " +
        "untracked files) changed since it was planned",
      {
        details: { planned: plan.source.source_state_id, current: source.source_state_id },
        remediation: replan,
      },
    );
  }
}

async function recheckCapability(ctx: CaptureContext, plan: CapturePlan): Promise<void> {
  const adapter = captureAdapterByName(plan.adapter.name)!;
  // Permission can change between plan and execution; only an active probe knows.
  const probed = await ctx.prober.probe(
    adapter,
    adapter.permissionSensitive ? "active_refresh" : "active_cached",
  );
  if (probed.report.status !== "available") throw capabilityRefusal(probed.report);
  for (const [name, bound] of Object.entries(plan.tools)) {
    const now = probed.facts.tools[name];
    if (
      !now ||
      !("executable" in now) ||
      now.executable.sha256 !== bound.sha256 ||
      now.executable.path !== bound.path
    ) {
      throw new FlameoxError(
        "EXECUTABLE_CHANGED",
        `Cannot execute the capture plan: ${name} on the child PATH is no longer the one ` +
          `bound in the plan`,
        { remediation: replan },
      );
    }
  }
  if (plan.bwrap) {
    const containment = await ctx.containment.probe("active_cached");
    if (containment.report.status !== "available") {
      throw new FlameoxError(
        "CONTAINMENT_UNAVAILABLE",
        `Cannot execute the managed capture: ${containment.report.reason}`,
        { remediation: replan },
      );
    }
  }
}
