/**
 * Planning a capture: binds the workload instance, its executable, the adapter with its
 * capability report and options, limits, containment, the child environment, and the
 * source and environment identities into one in-memory plan, and returns a preview and
 * a single-use token. Planning runs only bounded probes (tool versions, readiness, git
 * reads); it never runs the workload.
 */
import { type } from "arktype";
import { captureAdapterByName, CAPTURE_ADAPTER_NAMES } from "../../adapters/capture/registry.ts";
import type { CaptureAdapter, HostFacts } from "../../adapters/capture/capture-adapter.ts";
import { workloadEnvironment } from "../../broker/child-environment.ts";
import { freeBytes } from "../../broker/disk-usage.ts";
import { resolveExecutable } from "../../broker/executable-resolver.ts";
import { digestOf } from "../../domain/canonical-digest.ts";
import type { ContainmentMode, ResolvedExecutable } from "../../domain/capture.ts";
import { FlameoxError } from "../../domain/errors.ts";
import type { WorkloadDefinition } from "../../domain/workload/project-config.ts";
import { instantiateWorkload } from "../../domain/workload/workload-instance.ts";
import { nowIso } from "../../storage/control-plane.ts";
import type { CapturePlan } from "./capture-plan.ts";
import type { CaptureContext } from "./capture-context.ts";
import { resolveContainment } from "./plan-containment.ts";
import { environmentIdentity } from "./environment-identity.ts";
import { capabilityRefusal } from "./capability-refusal.ts";
import { projectDirectory, writableRoots } from "./project-paths.ts";
import { sourceIdentity } from "./source-identity.ts";
import { requireApproved } from "./workload-approval.ts";
import { requireWorkloadConfig } from "./workload-file.ts";
import { workloadVersion as probeWorkloadVersion } from "./workload-version.ts";

export interface PlanRequest {
  adapter: string;
  workload: string;
  parameters?: Record<string, unknown>;
  adapterOptions?: Record<string, unknown>;
  containment?: ContainmentMode;
}

export async function buildPlan(ctx: CaptureContext, request: PlanRequest): Promise<CapturePlan> {
  const { ws } = ctx;
  const policy = ws.config.execution;
  const adapter = captureAdapterByName(request.adapter);
  if (!adapter) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot plan a capture with adapter ${JSON.stringify(request.adapter)}: expected one ` +
        `of ${CAPTURE_ADAPTER_NAMES.join(", ")}`,
      {
        details: { field: "adapter" },
      },
    );
  }
  const checkedOptions = checkOptions(adapter, request.adapterOptions ?? {});
  const config = requireWorkloadConfig(ws.paths.projectRoot);
  const definition = config.workloads[request.workload];
  if (!definition) {
    throw new FlameoxError(
      "WORKLOAD_NOT_FOUND",
      `Cannot find workload ${JSON.stringify(request.workload)} in flameox.toml`,
      {
        details: { declared: Object.keys(config.workloads).sort() },
        remediation: [
          "List workloads with `flameox workload list` or workload_configuration_status",
        ],
      },
    );
  }
  // Nothing of an unapproved workload runs, not even a version probe of its executable.
  requireApproved(ws, definition);
  const containmentRequest = declaredContainment(definition, request.containment);
  const instance = instantiateWorkload(definition, request.parameters ?? {});
  if (instance.argv.some((item) => item.length === 0)) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot plan workload ${instance.name}: a parameter value leaves an argv item empty`,
      { details: { field: "parameters" } },
    );
  }
  const cwd = projectDirectory(ws.paths.projectRoot, instance.cwd);
  const baseEnv = workloadEnvironment(policy, process.env, instance.environment);
  const executable = resolveExecutable({
    command: instance.argv[0]!,
    cwd,
    projectRoot: ws.paths.projectRoot,
    path: baseEnv.PATH,
  });

  const probed = await ctx.prober.probe(adapter, "active_cached");
  if (probed.report.status !== "available") throw capabilityRefusal(probed.report);
  const tools = boundTools(probed.facts);
  const recognized = adapter.recognizesExecutable?.(executable) ?? true;
  // Containment first: a project executable's version is probed only inside the workload's sandbox.
  const containment = await resolveContainment(ctx, containmentRequest, instance.writable_paths);
  const workloadVersion =
    adapter.probesWorkloadExecutable && recognized
      ? await probeWorkloadVersion(executable, {
          projectRoot: ws.paths.projectRoot,
          cwd,
          childPath: baseEnv.PATH,
          bwrap: containment.bwrap,
        })
      : null;
  const adapterPlan = adapter.plan({
    workloadArgv: instance.argv,
    workloadExecutable: executable,
    workloadVersion,
    tools,
    toolVersions: Object.fromEntries(
      Object.entries(probed.facts.tools).map(([k, v]) => [k, "executable" in v ? v.version : null]),
    ),
    options: checkedOptions,
    timeoutSeconds: instance.timeout_seconds,
  });
  const childEnv = workloadEnvironment(policy, process.env, {
    ...instance.environment,
    ...adapterPlan.environment,
  });
  const oracle = instance.oracle
    ? {
        executable: resolveExecutable({
          command: instance.oracle.argv[0]!,
          cwd,
          projectRoot: ws.paths.projectRoot,
          path: childEnv.PATH,
        }),
        argv: instance.oracle.argv,
        timeout_seconds: instance.oracle.timeout_seconds,
        strength: instance.oracle.strength,
      }
    : null;
  const free = freeBytes(ws.paths.staging);
  if (policy.min_free_bytes > 0 && free.bytes !== null && free.bytes < policy.min_free_bytes) {
    throw new FlameoxError(
      "STORAGE_QUOTA_EXCEEDED",
      `Cannot plan a capture: ${free.bytes} bytes are free on the workspace filesystem, ` +
        `below execution.min_free_bytes (${policy.min_free_bytes})`,
      {
        remediation: [
          "Free disk space, or lower execution.min_free_bytes in .diagnostics/config.toml",
        ],
      },
    );
  }
  // git is a host tool: found on the workspace's workload PATH, never on one a workload declares.
  const source = await sourceIdentity(ws.paths.projectRoot, policy.workload_path);
  const versions: Record<string, string | null> = {
    [adapterPlan.producer.name]: adapterPlan.producer.version,
  };
  return {
    workspace_id: ws.identity.workspace_id,
    planned_at: nowIso(),
    request_digest: digestOf({
      adapter: adapter.name,
      workload: instance.name,
      parameters: instance.parameters,
      options: checkedOptions,
      containment: containment.report.mode,
    }),
    adapter: {
      name: adapter.name,
      version: adapter.version,
      options: adapterPlan.effectiveOptions,
      capability: probed.report,
    },
    workload: instance,
    configuration_id: config.configuration_id,
    policy_digest: digestOf(ws.config),
    executable,
    tools,
    oracle,
    command: adapterPlan.command,
    postSteps: adapterPlan.postSteps,
    childEnv,
    adapterEnvironment: adapterPlan.environment,
    environmentDigest: digestOf(childEnv),
    cwd,
    writableRoots: writableRoots(ws.paths.projectRoot, instance.writable_paths),
    limits: {
      deadline_seconds: adapterPlan.deadlineSeconds,
      max_output_bytes: policy.max_output_bytes,
      sampling_interval_ms: policy.resource_sampling_interval_ms,
      max_memory_bytes: policy.max_memory_bytes,
      min_free_bytes: policy.min_free_bytes,
      grace_ms: Math.round(policy.graceful_shutdown_seconds * 1000),
    },
    containment: containment.report,
    bwrap: containment.bwrap,
    producer: adapterPlan.producer,
    source,
    environment: environmentIdentity(versions),
    limitations: [
      ...probed.report.limitations,
      ...adapterPlan.limitations,
      ...containment.report.limitations,
    ],
  };
}

/**
 * A workload that declares `containment = "managed"` was approved to run only inside the
 * sandbox: a plan may not ask for less. Without a request it gets what it declared.
 */
function declaredContainment(
  definition: WorkloadDefinition,
  requested: ContainmentMode | undefined,
): ContainmentMode | undefined {
  if (definition.containment !== "managed") return requested;
  if (requested === "trusted_local") {
    throw new FlameoxError(
      "EXECUTION_REFUSED",
      `Cannot plan a trusted_local capture of workload ${definition.name}: it declares ` +
        `containment managed`,
      {
        details: { field: "containment" },
        remediation: ["Plan without containment, or with containment managed"],
      },
    );
  }
  return "managed";
}

function checkOptions(
  adapter: CaptureAdapter,
  raw: Record<string, unknown>,
): Record<string, unknown> {
  const checked = adapter.options(raw);
  if (checked instanceof type.errors) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Invalid options for adapter ${adapter.name}: ${checked.summary}`,
      { details: { field: "adapter_options" } },
    );
  }
  return checked;
}

function boundTools(facts: HostFacts): Record<string, ResolvedExecutable> {
  const out: Record<string, ResolvedExecutable> = {};
  for (const [name, tool] of Object.entries(facts.tools))
    if ("executable" in tool) out[name] = tool.executable;
  return out;
}
