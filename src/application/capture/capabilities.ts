/**
 * Capability probes. Passive: each adapter's tools are resolved on the child PATH and
 * hashed, nothing runs. Active: their `--version` and the adapter's readiness probes
 * run through the broker in a scratch directory, and the adapter assesses the facts.
 * Active results are cached per process for a minute; plans use the cache, and a
 * permission-sensitive adapter is probed again just before it executes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAPTURE_ADAPTERS } from "../../adapters/capture/registry.ts";
import type {
  CaptureAdapter,
  CommandPart,
  HostFacts,
  ProbeOutcome,
} from "../../adapters/capture/capture-adapter.ts";
import { versionLine } from "../../adapters/capture/capture-adapter.ts";
import type { CapabilityReport, ResolvedExecutable } from "../../domain/capture.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { resolveExecutable } from "../../broker/executable-resolver.ts";
import { runProcess } from "../../broker/process-broker.ts";
import { nowIso } from "../../storage/control-plane.ts";

export type ProbeMode = "passive" | "active_cached" | "active_refresh";

const CACHE_MS = 60_000;
const VERSION_TIMEOUT_MS = 10_000;

export interface ProbedAdapter {
  report: CapabilityReport;
  facts: HostFacts;
}

export class CapabilityProber {
  private readonly cache = new Map<string, { at: number; probed: ProbedAdapter }>();

  constructor(
    private readonly projectRoot: string,
    private readonly childPath: () => string | undefined,
  ) {}

  async all(mode: ProbeMode): Promise<ProbedAdapter[]> {
    const out: ProbedAdapter[] = [];
    for (const adapter of CAPTURE_ADAPTERS) out.push(await this.probe(adapter, mode));
    return out;
  }

  async probe(adapter: CaptureAdapter, mode: ProbeMode): Promise<ProbedAdapter> {
    const cached = this.cache.get(adapter.name);
    if (mode === "active_cached" && cached && performance.now() - cached.at < CACHE_MS)
      return cached.probed;
    const active = mode !== "passive";
    const facts = await this.gather(adapter, active);
    const assessed = active ? adapter.assess(facts) : passiveAssessment(adapter, facts);
    const probed: ProbedAdapter = {
      facts,
      report: {
        name: adapter.name,
        kind: "capture_adapter",
        adapter_version: adapter.version,
        status: assessed.status,
        reason: assessed.reason,
        probe: active ? "active" : "passive",
        probed_at: nowIso(),
        tools: adapter.tools.map((t) => {
          const tool = facts.tools[t.name];
          return tool && "executable" in tool
            ? {
                name: t.name,
                path: tool.executable.path,
                sha256: tool.executable.sha256,
                version: tool.version,
              }
            : { name: t.name, path: null, sha256: null, version: null };
        }),
        features: assessed.features,
        limitations: assessed.limitations,
      },
    };
    if (active) this.cache.set(adapter.name, { at: performance.now(), probed });
    return probed;
  }

  /** Resolves (and, when active, version-probes) one host tool. */
  async tool(
    name: string,
    versionArgs: string[],
    active: boolean,
  ): Promise<HostFacts["tools"][string]> {
    let executable: ResolvedExecutable;
    try {
      executable = resolveExecutable({
        command: name,
        cwd: this.projectRoot,
        projectRoot: this.projectRoot,
        path: this.childPath(),
      });
    } catch (error) {
      return { absent: error instanceof FlameoxError ? error.message : String(error) };
    }
    if (!active) return { executable, version: null };
    const outcome = await runProbe(
      [executable.path, ...versionArgs],
      null,
      VERSION_TIMEOUT_MS,
      this.childPath(),
    );
    return { executable, version: versionLine(outcome.stdout) ?? versionLine(outcome.stderr) };
  }

  private async gather(adapter: CaptureAdapter, active: boolean): Promise<HostFacts> {
    const facts: HostFacts = {
      tools: {},
      probes: {},
      sysctl: {},
      euid: process.geteuid?.() ?? null,
    };
    for (const t of adapter.tools)
      facts.tools[t.name] = await this.tool(t.name, t.versionArgs, active);
    for (const key of adapter.sysctl) facts.sysctl[key] = readSysctl(key);
    if (!active) return facts;
    const scratch = mkdtempSync(join(tmpdir(), "flameox-probe-"));
    try {
      for (const probe of adapter.readinessProbes(facts)) {
        const tool = facts.tools[probe.tool];
        facts.probes[probe.id] =
          tool && "executable" in tool
            ? await runProbe(
                [tool.executable.path, ...materialize(probe.args, scratch)],
                scratch,
                probe.timeoutMs,
                this.childPath(),
              )
            : null;
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return facts;
  }
}

/** Without running anything, only absence is certain. */
function passiveAssessment(adapter: CaptureAdapter, facts: HostFacts) {
  const required = adapter.tools.filter((t) => !t.optional);
  const missing = required.filter(
    (t) => !("executable" in (facts.tools[t.name] ?? { absent: "" })),
  );
  const anyOptional = adapter.tools.some(
    (t) => t.optional && "executable" in (facts.tools[t.name] ?? { absent: "" }),
  );
  if (missing.length > 0 || (required.length === 0 && adapter.tools.length > 0 && !anyOptional)) {
    return {
      status: "absent" as const,
      reason:
        `not on the child PATH: ` +
        `${(missing.length > 0 ? missing : adapter.tools).map((t) => t.name).join(", ")}`,
      features: {},
      limitations: [],
    };
  }
  if (adapter.tools.length === 0) return adapter.assess(facts);
  return {
    status: "unknown" as const,
    reason: "passive probe: tools resolved and hashed, not run; probe actively to know more",
    features: {},
    limitations: [],
  };
}

export async function runProbe(
  argv: string[],
  cwd: string | null,
  timeoutMs: number,
  childPath: string | undefined,
): Promise<ProbeOutcome> {
  const result = await runProcess({
    argv,
    cwd: cwd ?? tmpdir(),
    env: { PATH: childPath ?? "", LC_ALL: "C" },
    deadlineAt: Date.now() + timeoutMs,
    maxOutputBytes: 64 * 1024,
    graceMs: 500,
  });
  const t = result.termination;
  return {
    exitCode: t.kind === "exited" ? t.exitCode : null,
    timedOut: t.kind === "timeout",
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

export function materialize(parts: CommandPart[], outputDir: string): string[] {
  return parts.map((part) =>
    typeof part === "string"
      ? part
      : `${part.prefix ?? ""}${part.output ? join(outputDir, part.output) : outputDir}`,
  );
}

function readSysctl(key: string): string | null {
  if (!/^[a-z0-9_/]+$/.test(key)) return null;
  try {
    return readFileSync(`/proc/sys/${key}`, "latin1").trim();
  } catch {
    return null;
  }
}
