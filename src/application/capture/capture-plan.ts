/**
 * What a capture plan binds, held only in the planning process's memory behind its
 * token, and the preview a caller sees (no token-only secrets, no storage paths, no
 * environment values).
 */
import type { AdapterPlan, CommandPart, PostStep } from "../../adapters/capture/capture-adapter.ts";
import type {
  CapabilityReport,
  ContainmentReport,
  ResolvedExecutable,
} from "../../domain/capture.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import type { EnvironmentIdentity, SourceIdentity } from "../../domain/identity.ts";
import type { ScalarValue } from "../../domain/workload/workload-schema.ts";
import type { WorkloadInstance } from "../../domain/workload/workload-instance.ts";

export interface CaptureLimits {
  deadline_seconds: number;
  max_output_bytes: number;
  sampling_interval_ms: number;
  max_memory_bytes: number;
  min_free_bytes: number;
  grace_ms: number;
}

export interface CapturePlan {
  workspace_id: string;
  planned_at: string;
  request_digest: string;
  adapter: {
    name: string;
    version: string;
    options: AdapterPlan["effectiveOptions"];
    capability: CapabilityReport;
  };
  workload: WorkloadInstance;
  configuration_id: string;
  policy_digest: string;
  executable: ResolvedExecutable;
  tools: Record<string, ResolvedExecutable>;
  oracle: {
    executable: ResolvedExecutable;
    argv: string[];
    timeout_seconds: number;
    strength: string;
  } | null;
  command: CommandPart[];
  postSteps: PostStep[];
  childEnv: Record<string, string>;
  /** Variables the adapter itself adds (the rest comes from the allowlist and the workload). */
  adapterEnvironment: Record<string, string>;
  environmentDigest: string;
  cwd: string;
  writableRoots: string[];
  limits: CaptureLimits;
  containment: ContainmentReport;
  bwrap: ResolvedExecutable | null;
  producer: AdapterPlan["producer"];
  source: SourceIdentity;
  environment: EnvironmentIdentity;
  limitations: Limitation[];
}

export interface ExecutableView {
  requested: string;
  trust: ResolvedExecutable["trust"];
  path: string;
  sha256: string;
}

export interface PlanPreview {
  plan_id: string;
  expires_at: string;
  ttl_seconds: number;
  request_digest: string;
  adapter: {
    name: string;
    version: string;
    status: string;
    options: AdapterPlan["effectiveOptions"];
  };
  workload: {
    name: string;
    workload_definition_id: string;
    workload_instance_id: string;
    parameters: Record<string, ScalarValue>;
  };
  configuration_id: string;
  command: { argv: string[]; cwd: string; environment_names: string[] };
  executables: ExecutableView[];
  limits: CaptureLimits;
  containment: ContainmentReport;
  source: { source_state_id: string; identity_quality: string; head_commit: string | null };
  environment: { environment_id: string; identity_quality: string };
  limitations: Limitation[];
}
