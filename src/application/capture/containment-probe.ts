/**
 * Whether managed containment can be guaranteed here: bubblewrap on the child PATH and
 * an active probe showing it can create the namespaces the sandbox uses. Cached per
 * process for a minute, like adapter probes.
 */
import { bubblewrapProbeArgv } from "../../broker/containment.ts";
import type { CapabilityReport, ResolvedExecutable } from "../../domain/capture.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { type CapabilityProber, type ProbeMode, runProbe } from "./capabilities.ts";

const CACHE_MS = 60_000;

export interface ContainmentCapability {
  report: CapabilityReport;
  bwrap: ResolvedExecutable | null;
}

export class ContainmentProber {
  private cached: { at: number; value: ContainmentCapability } | null = null;

  constructor(
    private readonly prober: CapabilityProber,
    private readonly childPath: () => string | undefined,
  ) {}

  async probe(mode: ProbeMode): Promise<ContainmentCapability> {
    if (mode === "active_cached" && this.cached && performance.now() - this.cached.at < CACHE_MS) return this.cached.value;
    const active = mode !== "passive";
    const tool = await this.prober.tool("bwrap", ["--version"], active);
    const base = { name: "containment.bubblewrap", kind: "containment" as const, adapter_version: null, probe: active ? ("active" as const) : ("passive" as const), probed_at: nowIso(), limitations: [] };
    if (!tool || !("executable" in tool)) {
      const value = { report: { ...base, status: "absent" as const, reason: "bwrap is not on the child PATH (Debian: apt-get install bubblewrap)", tools: [{ name: "bwrap", path: null, sha256: null, version: null }], features: {} }, bwrap: null };
      return this.remember(value, active);
    }
    const tools = [{ name: "bwrap", path: tool.executable.path, sha256: tool.executable.sha256, version: tool.version }];
    if (!active) return { report: { ...base, status: "unknown", reason: "passive probe: bwrap found, namespace creation not tried", tools, features: {} }, bwrap: tool.executable };
    const outcome = await runProbe(bubblewrapProbeArgv(tool.executable.path), null, 10_000, this.childPath());
    const ok = outcome.exitCode === 0 && !outcome.timedOut;
    const reason = ok
      ? "bwrap created network and PID namespaces with a read-only root"
      : `bwrap cannot create its namespaces here: ${outcome.stderr.trim().split("\n")[0]?.slice(0, 200) || `exit code ${outcome.exitCode}`}`;
    const features = { network_namespace: ok, pid_namespace: ok, cgroup_limits: false };
    const limitations = [{ code: "no_cgroup_limits", message: "CPU, memory and process-count limits are not enforced by a cgroup; memory is policed by sampling the process tree" }];
    const status = ok ? ("available" as const) : /permission|not permitted|EPERM/i.test(outcome.stderr) ? ("permission_required" as const) : ("incompatible" as const);
    return this.remember({ report: { ...base, status, reason, tools, features, limitations }, bwrap: tool.executable }, active);
  }

  private remember(value: ContainmentCapability, active: boolean): ContainmentCapability {
    if (active) this.cached = { at: performance.now(), value };
    return value;
  }
}
