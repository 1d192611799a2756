/**
 * Records of capture execution shared by the broker, the capture adapters and the
 * application: executable bindings, capability reports, containment, termination and
 * resource evidence. Pure types; they never carry workspace storage paths.
 */
import type { Limitation } from "./evidence-status.ts";

/**
 * project_bound: beneath the project root; host_tool: found on the request's PATH; exact_path: an
 * absolute path named as is.
 */
export type ExecutableTrust = "project_bound" | "host_tool" | "exact_path";

/**
 * An executable bound by canonical path and content digest; the broker revalidates it and never
 * searches again.
 */
export interface ResolvedExecutable {
  requested: string;
  /**
   * Absolute path that is executed: the PATH entry or the lexical project path, not the
   * symlink target, so a multi-call binary still sees the name it was asked for.
   */
  path: string;
  /** Where `path` resolved when bound; revalidation requires it still resolves there. */
  canonical_path: string;
  trust: ExecutableTrust;
  sha256: string;
  size: number;
  /**
   * File identity when hashed (dev, inode, size, mtime, ctime): a change of any means the bytes
   * must be hashed again.
   */
  identity: { dev: number; ino: number; size: number; mtime_ns: string; ctime_ns: string };
}

/** unknown: only a passive probe ran (tools resolved and hashed, nothing executed). */
export type CapabilityStatus =
  | "available"
  | "absent"
  | "incompatible"
  | "permission_required"
  | "unknown";

export interface ToolReport {
  name: string;
  path: string | null;
  sha256: string | null;
  version: string | null;
}

export interface CapabilityReport {
  name: string;
  kind: "capture_adapter" | "containment";
  adapter_version: string | null;
  status: CapabilityStatus;
  reason: string;
  /** passive: resolved and hashed only; active: probe commands ran through the broker. */
  probe: "passive" | "active";
  probed_at: string;
  tools: ToolReport[];
  features: Record<string, string | number | boolean | null>;
  limitations: Limitation[];
}

export type ContainmentMode = "trusted_local" | "managed";

export interface ContainmentReport {
  mode: ContainmentMode;
  /** What is actually enforced; an uncontained run is never reported as contained. */
  state: "uncontained" | "contained";
  network: "allowed" | "denied";
  backend: "bubblewrap" | null;
  filesystem: "host" | "read_only_root";
  /**
   * Project-relative roots the workload may write (managed only; trusted_local can write anywhere
   * it could anyway).
   */
  writable_roots: string[];
  limitations: Limitation[];
}

export type SignalReason = "timeout" | "cancelled" | "policy" | "leader_exited";

export interface SignalRecord {
  signal: "SIGTERM" | "SIGKILL";
  target: "group" | "descendant";
  reason: SignalReason;
  /** Milliseconds since the process started. */
  at_ms: number;
  /** Number of processes a descendant signal reached. */
  processes?: number;
}

export type TerminationKind = "exited" | "signaled" | "timeout" | "cancelled" | "policy";

export interface TerminationEvidence {
  kind: TerminationKind;
  exit_code: number | null;
  signal: string | null;
  /** Set for a policy termination: which limit was crossed. */
  policy: { metric: string; limit: number; observed: number } | null;
  signals_sent: SignalRecord[];
  wall_ms: number;
  /**
   * Descendants that had left the process group and were signalled (SIGTERM, then SIGKILL if still
   * alive).
   */
  escaped_descendants_killed: number;
  /**
   * Escaped descendants still alive after the final SIGKILL: they got away (absent in runs recorded
   * before it was counted).
   */
  escaped_descendants_survived?: number;
  /**
   * How escaped descendants were kept in reach: adopted by flameox as a subreaper, or only by
   * sampling and session scans.
   */
  descendant_tracking?: "subreaper" | "session_scan" | null;
}

export interface UnavailableMetric {
  metric: string;
  reason: string;
}

export interface ResourceSummary {
  sampling_interval_ms: number;
  samples: number;
  /** Maximum sampled sum of RSS over the process tree; a sample, not a lifetime maximum. */
  peak_rss_bytes: number | null;
  peak_rss_backend: "procfs_tree_polling";
  /**
   * The leader's own peak RSS from wait4 (children it reaped included by the kernel only once
   * waited).
   */
  leader_max_rss_bytes: number | null;
  minimum_free_bytes: number | null;
  free_bytes_backend: "statfs";
  staging_growth_bytes: number | null;
  max_processes_observed: number;
  /** CPU time flameox spent sampling, so its overhead is visible. */
  sampler_cpu_ms: number;
  writable_root_growth: { path: string; growth_bytes: number | null; reason: string | null }[];
  unavailable_metrics: UnavailableMetric[];
}
