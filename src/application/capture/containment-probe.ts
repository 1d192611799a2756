/**
 * Whether managed containment can be guaranteed here. bubblewrap is looked for at a fixed
 * root-owned system path first, then on the child PATH; either way it counts as available
 * only when the behaviour probe saw a sandboxed process isolated from the host. A bwrap
 * that runs commands without isolating them is reported absent: it is not a sandbox.
 * Cached per process for a minute, like adapter probes.
 */
import type { CapabilityReport, ResolvedExecutable } from "../../domain/capture.ts";
import { locateBubblewrap, probeSandbox } from "../../broker/sandbox-probe.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { type ProbeMode, runProbe } from "./capabilities.ts";
import { versionLine } from "../../adapters/capture/capture-adapter.ts";

const CACHE_MS = 60_000;

export interface ContainmentCapability {
  report: CapabilityReport;
  bwrap: ResolvedExecutable | null;
}

export class ContainmentProber {
  private cached: { at: number; value: ContainmentCapability } | null = null;

  constructor(
    private readonly projectRoot: string,
    private readonly childPath: () => string | undefined,
  ) {}

  async probe(mode: ProbeMode): Promise<ContainmentCapability> {
    if (mode === "active_cached" && this.cached && performance.now() - this.cached.at < CACHE_MS)
      return this.cached.value;
    const active = mode !== "passive";
    const base = {
      name: "containment.bubblewrap",
      kind: "containment" as const,
      adapter_version: null,
      probe: active ? ("active" as const) : ("passive" as const),
      probed_at: nowIso(),
      limitations: [],
    };
    const located = locateBubblewrap(this.childPath(), this.projectRoot);
    if ("absent" in located) {
      const value = {
        report: {
          ...base,
          status: "absent" as const,
          reason: "bwrap is not installed (Debian: apt-get install bubblewrap)",
          tools: [{ name: "bwrap", path: null, sha256: null, version: null }],
          features: {},
        },
        bwrap: null,
      };
      return this.remember(value, active);
    }
    const bwrap = located.executable;
    const where = located.trustedPath
      ? "a root-owned system path"
      : "the child PATH (not a root-owned system path)";
    if (!active) {
      const tools = [{ name: "bwrap", path: bwrap.path, sha256: bwrap.sha256, version: null }];
      return {
        report: {
          ...base,
          status: "unknown",
          reason: `passive probe: bwrap found on ${where}, isolation not tried`,
          tools,
          features: { trusted_path: located.trustedPath },
        },
        bwrap,
      };
    }
    const version = await runProbe([bwrap.path, "--version"], null, 10_000, this.childPath());
    const tools = [
      {
        name: "bwrap",
        path: bwrap.path,
        sha256: bwrap.sha256,
        version: versionLine(version.stdout) ?? null,
      },
    ];
    const probed = await probeSandbox(bwrap.path, process.env.HOME);
    const features = { trusted_path: located.trustedPath, ...probed.checks, cgroup_limits: false };
    const limitations = [
      {
        code: "no_cgroup_limits",
        message:
          "CPU, memory and process-count limits are not enforced by a cgroup; memory is " +
          "policed by sampling the process tree",
      },
      {
        code: "host_readable",
        message:
          "the workload can read every host file its user may read, except the hidden " +
          "private directories (/tmp, /var/tmp, /run, /root, /home, $HOME) and secret files; " +
          "it cannot open a Unix socket (seccomp), so no host socket is reachable by path",
      },
    ];
    if (probed.proven)
      return this.remember(
        {
          report: {
            ...base,
            status: "available",
            reason: `bwrap from ${where}: ${probed.reason}`,
            tools,
            features,
            limitations,
          },
          bwrap,
        },
        active,
      );
    const status = probed.seen
      ? ("absent" as const)
      : /permission|not permitted|EPERM|No space left|setting up uid map/i.test(probed.stderr)
        ? ("permission_required" as const)
        : ("incompatible" as const);
    const reason = probed.seen
      ? `${bwrap.path} does not isolate what it runs (${probed.reason}); it is not treated as ` +
        `a sandbox`
      : `bwrap cannot build its sandbox here: ${probed.reason}`;
    return this.remember(
      { report: { ...base, status, reason, tools, features, limitations: [] }, bwrap: null },
      active,
    );
  }

  private remember(value: ContainmentCapability, active: boolean): ContainmentCapability {
    if (active) this.cached = { at: performance.now(), value };
    return value;
  }
}
