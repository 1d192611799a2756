/**
 * Text renderings of workload, plan, capture, capability and recovery results. Untrusted strings
 * pass through safeText.
 */
import type { CapabilitiesResult } from "../application/capture/capture-service.ts";
import type { PlanPreview } from "../application/capture/capture-plan.ts";
import type { CaptureResult } from "../application/capture/capture-result.ts";
import type { RebuildResult } from "../application/rebuild-control-plane.ts";
import type { RecoverResult } from "../application/capture/recover-runs.ts";
import type { ApproveResult, RevokeResult } from "../application/capture/workload-approval.ts";
import type {
  WorkloadConfigurationStatus,
  WorkloadDetail,
} from "../application/capture/workload-queries.ts";
import type { ContainmentReport } from "../domain/capture.ts";
import type { WorkloadApproval } from "../domain/workload/approval.ts";
import { safeText, table } from "./output.ts";

const bytes = (n: number | null) =>
  n === null
    ? "unavailable"
    : n >= 1 << 30
      ? `${(n / (1 << 30)).toFixed(1)} GiB`
      : n >= 1 << 20
        ? `${(n / (1 << 20)).toFixed(1)} MiB`
        : n >= 1024
          ? `${(n / 1024).toFixed(1)} KiB`
          : `${n} B`;
const containment = (c: ContainmentReport) =>
  `${c.mode}: ${c.state}, ` +
  `network ${c.network}${c.backend ? ` (${c.backend}, ${c.filesystem})` : ""}`;
const limits = (items: { code: string; message: string }[]) =>
  items.map((l) => `limitation ${l.code}: ${safeText(l.message)}`);

export function renderWorkloadStatus(r: WorkloadConfigurationStatus): string {
  if (r.state !== "valid")
    return [
      `${r.path}: ${r.state}`,
      ...r.diagnostics.map((d) => `  ${safeText(d.path)}: ${safeText(d.message)}`),
      `next: ${r.next_tool}`,
    ].join("\n");
  return [
    `${r.path}: valid (${r.configuration_id})`,
    r.workloads.length === 0
      ? "no workloads declared"
      : table([
          ["WORKLOAD", "EXECUTABLE", "PARAMETERS", "TIMEOUT", "APPROVAL", "DECLARED BY"],
          ...r.workloads.map((w) => [
            w.name,
            safeText(w.executable),
            w.parameters.map((p) => p.name).join(",") || "-",
            `${w.timeout_seconds}s`,
            w.approval.state,
            w.approval.declared_by,
          ]),
        ]),
    ...r.workloads
      .filter((w) => w.approval.approve_command)
      .map((w) => `${w.name} cannot run until a person approves it: ${w.approval.approve_command}`),
  ].join("\n");
}

/** One line on approval: the state, by whom and when, or the command that approves it. */
export function approvalLine(a: WorkloadApproval): string {
  const by = `declared by ${a.declared_by}`;
  if (a.state === "approved")
    return `approval approved by ${safeText(a.approved_by)} at ${a.approved_at}; ${by}`;
  if (a.state === "stale")
    return (
      `approval stale: the declaration changed since ${safeText(a.approved_by)} ` +
      `approved ${a.approved_workload_definition_id} at ${a.approved_at}; ${by}; approve ` +
      `with: ${a.approve_command}`
    );
  return `approval unapproved; ${by}; approve with: ${a.approve_command}`;
}

export function renderWorkload(r: WorkloadDetail): string {
  const w = r.workload;
  return [
    `workload ${w.name} (${w.workload_definition_id})`,
    approvalLine(r.approval),
    ...(w.description ? [`  ${safeText(w.description)}`] : []),
    `argv ${JSON.stringify(w.argv)}`,
    `cwd ${w.cwd}   timeout ${w.timeout_seconds}s`,
    ...Object.entries(w.parameters).map(
      ([name, d]) =>
        `parameter ${name}: ` +
        `${d.kind === "choices" ? JSON.stringify(d.choices) : `${d.minimum}..${d.maximum}`}` +
        `${d.default !== null ? ` (default ${JSON.stringify(d.default)})` : ""}`,
    ),
    ...Object.keys(w.environment).map((k) => `environment ${k}`),
    ...w.writable_paths.map((p) => `writable ${p}`),
    ...(w.oracle ? [`oracle ${w.oracle.strength}: ${JSON.stringify(w.oracle.argv)}`] : []),
    ...(w.containment ? [`containment at least ${w.containment}`] : []),
    "canonical form (what the digest covers and an approval approves):",
    JSON.stringify(r.canonical, null, 2),
  ]
    .map(safeText)
    .join("\n");
}

export function renderApproval(
  r: ApproveResult | (Omit<ApproveResult, "outcome"> & { outcome: "declined" }),
): string {
  if (r.outcome === "declined")
    return `workload ${r.workload} not approved (declined); it stays ${r.previous_state}`;
  if (r.outcome === "already_approved")
    return (
      `workload ${r.workload} already approved ` +
      `(${r.workload_definition_id})\n${approvalLine(r.approval)}`
    );
  return [
    `approved workload ${r.workload} (${r.workload_definition_id}); it was ${r.previous_state}`,
    approvalLine(r.approval),
    "canonical form approved:",
    JSON.stringify(r.canonical, null, 2),
  ]
    .map(safeText)
    .join("\n");
}

export function renderRevoke(r: RevokeResult): string {
  return `revoked ${r.revoked} approval(s) of workload ${r.workload}\n${approvalLine(r.approval)}`;
}

export function renderPlan(r: PlanPreview): string {
  return [
    `plan_id ${r.plan_id} (expires ${r.expires_at}; valid only inside the process that made it)`,
    `workload ${r.workload.name} ${JSON.stringify(r.workload.parameters)} via ${r.adapter.name}`,
    `command ${safeText(JSON.stringify(r.command.argv))} in ${r.command.cwd}`,
    ...r.executables.map(
      (e) =>
        `executable ${e.requested} → ${safeText(e.path)} (${e.trust}, ${e.sha256.slice(0, 19)}…)`,
    ),
    `containment ${containment(r.containment)}`,
    `limits deadline ${r.limits.deadline_seconds}s, ` +
      `output ${bytes(r.limits.max_output_bytes)}, sampling ` +
      `every ${r.limits.sampling_interval_ms} ms`,
    `source ${r.source.identity_quality} ${r.source.source_state_id}`,
    ...limits(r.limitations),
    "execute with: flameox capture run (plans and runs in one process)",
  ].join("\n");
}

export function renderCapture(r: CaptureResult): string {
  const t = r.termination;
  const signals =
    t.signals_sent.map((s) => `${s.signal}→${s.target}@${s.at_ms}ms`).join(", ") || "none";
  return [
    `run ${r.run_id}: execution ${r.execution_status}, capture ${r.capture_status}, ` +
      `extraction ${r.extraction_status}, validation ${r.validation_status}`,
    `workload ${r.workload.name} via ${r.adapter.name}; ${containment(r.containment)}`,
    `termination ${t.kind}${t.exit_code !== null ? ` ${t.exit_code}` : ""}` +
      `${t.signal ? ` (${t.signal})` : ""} after ${t.wall_ms.toFixed(1)} ms; signals ` +
      `sent: ${signals}`,
    `resources peak RSS ${bytes(r.resources.peak_rss_bytes)} over ${r.resources.samples} ` +
      `samples, min free ${bytes(r.resources.minimum_free_bytes)}, ` +
      `staging ${bytes(r.resources.staging_growth_bytes)}`,
    ...r.resources.unavailable_metrics.map((m) => `unavailable ${m.metric}: ${m.reason}`),
    ...r.artifacts.map(
      (a) =>
        `artifact ${a.artifact_id} ${safeText(a.display_name)} ${a.kind} ${a.byte_length} ` +
        `bytes${a.partial ? ` (partial of ${a.produced_bytes})` : ""}`,
    ),
    ...r.extractions.map(
      (e) =>
        `extraction ${e.adapter}: ${e.status}${e.generation_id ? ` ${e.generation_id}` : ""} \
${Object.entries(e.tables)
  .map(([k, n]) => `${k}=${n}`)
  .join(" ")}${e.error ? ` ${safeText(e.error.message)}` : ""}`,
    ),
    ...(r.validation
      ? [
          `validation ${r.validation.strength}: ${r.validation.status} ` +
            `(exit ${r.validation.exit_code}` +
            `${r.validation.reason ? `, ${safeText(r.validation.reason)}` : ""})`,
        ]
      : []),
    ...limits(r.limitations),
    ...(r.next_tool === "analyze_hotspots" ? [`next: flameox analyze hotspots ${r.run_id}`] : []),
  ].join("\n");
}

export function renderCapabilities(r: CapabilitiesResult): string {
  const rows = [...r.adapters, r.containment].map((c) => [c.name, c.status, safeText(c.reason)]);
  return [
    `capabilities (${r.probe} probe, ${r.probed_at})`,
    table([["NAME", "STATUS", "REASON"], ...rows]),
  ].join("\n");
}

export function renderRecover(r: RecoverResult & { rebuild?: RebuildResult }): string {
  const b = r.rebuild;
  return [
    ...(b
      ? [
          `rebuilt from corpus at ${b.corpus_commit_id}: ${b.runs_restored.length} ` +
            `run(s), ${b.artifacts_restored.length} artifact(s), ${b.registrations_restored} ` +
            `registration(s), ${b.extractions_restored} ` +
            `extraction(s), ${b.head_log_entries_added} HEAD log ` +
            `entr${b.head_log_entries_added === 1 ? "y" : "ies"} restored`,
          ...(b.head_restored
            ? [`HEAD moved forward from ${b.head_restored.from} to ${b.head_restored.to}`]
            : []),
          ...(b.artifacts_unrestorable.length > 0
            ? [
                `${b.artifacts_unrestorable.length} artifact(s) named by commits have no ` +
                  `payload in the store`,
              ]
            : []),
        ]
      : []),
    `checked ${r.checked} open run(s): ${r.closed.length} closed, ${r.reconciled.length} ` +
      `reconciled as published, ${r.live.length} live, ${r.unknown.length} undecidable`,
    ...r.reconciled.map((c) => `published ${c.run_id}: HEAD holds ${c.generation_ids.join(", ")}`),
    ...r.closed.map(
      (c) =>
        `closed ${c.run_id}: ${safeText(c.reason)}` +
        (c.orphaned_processes_killed > 0
          ? `; killed ${c.orphaned_processes_killed} orphaned process(es)`
          : ""),
    ),
    ...r.live.map((l) => `live ${l.run_id} (pid ${l.pid})`),
    ...r.unknown.map((u) => `left ${u.run_id}: ${safeText(u.reason)}`),
    ...r.staging_reclaimed.map(
      (s) =>
        `reclaimed staging ${s.operation_id}` +
        `${s.workers_killed > 0 ? `; killed its parse worker` : ""}`,
    ),
    ...(r.extractions_closed > 0 ? [`closed ${r.extractions_closed} abandoned extraction(s)`] : []),
  ].join("\n");
}
