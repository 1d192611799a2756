/**
 * Runs a plan's processes through the broker: the workload (wrapped by its collector,
 * and by bubblewrap when managed) with stdout and stderr streamed into staging under
 * the output cap and the process tree sampled; then the adapter's post steps. Returns
 * termination and resource evidence; writes nothing to the control plane itself.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgv, privateDirectories } from "../../broker/containment.ts";
import { directoryBytes } from "../../broker/disk-usage.ts";
import { runProcess, type ProcessResult, type Termination } from "../../broker/process-broker.ts";
import type { ResourceSummary, TerminationEvidence } from "../../domain/capture.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { materialize } from "./capabilities.ts";
import type { CapturePlan } from "./capture-plan.ts";

export interface CaptureDirs {
  stagingDir: string;
  outDir: string;
}

export interface ProcessOutcome {
  result: ProcessResult;
  termination: TerminationEvidence;
  resources: ResourceSummary;
  postSteps: Record<string, { exitCode: number | null; timedOut: boolean; stderr: string }>;
}

export async function runCaptureProcesses(
  ws: Workspace,
  plan: CapturePlan,
  dirs: CaptureDirs,
  options: {
    signal?: AbortSignal;
    onSpawn?: (child: { pid: number; startTime: string | null }) => void;
  },
): Promise<ProcessOutcome> {
  const wrap = containedArgv(ws, plan, dirs);
  const rootsBefore = plan.writableRoots.map((root) => directoryBytes(root));
  const result = await runProcess({
    argv: wrap(materialize(plan.command, dirs.outDir)),
    // The workload and the adapter's tools run as the bytes the plan bound, whatever the paths hold
    // now.
    pinned: [plan.executable, ...Object.values(plan.tools)],
    cwd: plan.cwd,
    env: plan.childEnv,
    deadlineAt: Date.now() + plan.limits.deadline_seconds * 1000,
    maxOutputBytes: plan.limits.max_output_bytes,
    graceMs: plan.limits.grace_ms,
    signal: options.signal,
    stdout: { kind: "file", path: join(dirs.stagingDir, "stdout") },
    stderr: { kind: "file", path: join(dirs.stagingDir, "stderr") },
    sampling: {
      intervalMs: plan.limits.sampling_interval_ms,
      freeBytesPath: ws.paths.staging,
      maxTreeRssBytes: plan.limits.max_memory_bytes,
      minFreeBytes: plan.limits.min_free_bytes > 0 ? plan.limits.min_free_bytes : undefined,
    },
    onSpawn: options.onSpawn,
  });
  const postSteps: ProcessOutcome["postSteps"] = {};
  if (result.termination.kind !== "cancelled" && !options.signal?.aborted) {
    for (const step of plan.postSteps) {
      const tool = plan.tools[step.tool]!;
      const ran = await runProcess({
        argv: wrap([tool.path, ...materialize(step.args, dirs.outDir)]),
        pinned: [tool],
        cwd: plan.cwd,
        env: plan.childEnv,
        deadlineAt: Date.now() + step.timeoutSeconds * 1000,
        maxOutputBytes: ws.config.storage.max_artifact_bytes,
        maxStderrBytes: 64 * 1024,
        graceMs: plan.limits.grace_ms,
        signal: options.signal,
        stdout: { kind: "file", path: join(dirs.outDir, step.stdoutTo) },
      });
      const t = ran.termination;
      postSteps[step.id] = {
        exitCode: t.kind === "exited" ? t.exitCode : null,
        timedOut: t.kind === "timeout",
        stderr: ran.stderr.slice(0, 4096),
      };
    }
  }
  return {
    result,
    termination: terminationEvidence(result),
    resources: resourceSummary(plan, dirs, result, rootsBefore),
    postSteps,
  };
}

/** Wraps an argv in the plan's sandbox when it is managed; trusted_local runs it as is. */
export function containedArgv(
  ws: Workspace,
  plan: CapturePlan,
  dirs: CaptureDirs,
): (argv: string[]) => string[] {
  if (!plan.bwrap) return (argv) => argv;
  const root = realpathSync(ws.paths.projectRoot);
  const layout = {
    projectRoot: root,
    diagnosticsDir: join(root, ".diagnostics"),
    writableRoots: plan.writableRoots,
    outputDir: dirs.outDir,
    cwd: plan.cwd,
    privateDirs: privateDirectories(process.env.HOME),
  };
  return (argv) => bubblewrapArgv(plan.bwrap!.path, layout, argv);
}

export function terminationEvidence(result: ProcessResult): TerminationEvidence {
  const t: Termination = result.termination;
  return {
    kind: t.kind,
    exit_code: t.kind === "exited" ? t.exitCode : null,
    signal: t.kind === "signaled" ? t.signal : t.kind === "policy" ? t.signal : null,
    policy: t.kind === "policy" ? { metric: t.metric, limit: t.limit, observed: t.observed } : null,
    signals_sent: result.signalsSent,
    wall_ms: Math.round(result.wallMs * 1000) / 1000,
    escaped_descendants_killed: result.escapedDescendantsKilled,
    escaped_descendants_survived: result.escapedDescendantsSurvived,
    descendant_tracking: result.descendantTracking,
  };
}

function resourceSummary(
  plan: CapturePlan,
  dirs: CaptureDirs,
  result: ProcessResult,
  rootsBefore: ReturnType<typeof directoryBytes>[],
): ResourceSummary {
  const sampled = result.resources!;
  const unavailable = [...sampled.unavailable_metrics];
  // The staging tree starts empty for every run, so its size at the end is its growth.
  const staging = directoryBytes(dirs.stagingDir);
  if (staging.bytes === null)
    unavailable.push({ metric: "staging_growth_bytes", reason: staging.reason });
  // The exit status's ru_maxrss includes the spawning process's RSS (Linux folds the old
  // address space's high-water mark into an exec'd child), so the leader's own VmHWM from
  // the sampler is used; ru_maxrss only when the leader exited before its first sample.
  const leaderPeak = sampled.leader_hwm_bytes ?? result.maxRssBytes;
  if (leaderPeak === null)
    unavailable.push({
      metric: "leader_max_rss_bytes",
      reason: "the OS reported no resource usage for the leader",
    });
  return {
    sampling_interval_ms: sampled.sampling_interval_ms,
    samples: sampled.samples,
    peak_rss_bytes: sampled.peak_rss_bytes,
    peak_rss_backend: "procfs_tree_polling",
    leader_max_rss_bytes: leaderPeak,
    minimum_free_bytes: sampled.minimum_free_bytes,
    free_bytes_backend: "statfs",
    staging_growth_bytes: staging.bytes,
    max_processes_observed: sampled.max_processes_observed,
    sampler_cpu_ms: sampled.sampler_cpu_ms,
    writable_root_growth: plan.writableRoots.map((root, i) => {
      const before = rootsBefore[i]!;
      const after = directoryBytes(root);
      const path = plan.workload.writable_paths[i] ?? root;
      if (before.bytes === null || after.bytes === null)
        return { path, growth_bytes: null, reason: before.reason ?? after.reason };
      return { path, growth_bytes: after.bytes - before.bytes, reason: null };
    }),
    unavailable_metrics: unavailable,
  };
}
