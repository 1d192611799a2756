/**
 * Which JavaScript runtime a workload executable is, from its canonical file name and
 * its own `--version` output (both bound in the plan): Node prints `v20.20.2`, Bun
 * prints `1.4.4`. Anything else is not a V8/JSC runtime these adapters can drive. The
 * version of a project executable is known only when it was probed inside the sandbox.
 */
import { FlameoxError } from "../../domain/errors.ts";
import type { ResolvedExecutable } from "../../domain/capture.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import type {
  AdapterPlanInput,
  Assessment,
  CaptureAdapter,
  CommandPart,
  HostFacts,
} from "./capture-adapter.ts";

export interface JsRuntime {
  name: "node" | "bun";
  version: string;
  major: number;
}

/**
 * node or bun by the canonical file name of the executable (npm installs resolve to `.exe` even on
 * Linux).
 */
export function runtimeNameOf(executable: ResolvedExecutable): "node" | "bun" | null {
  const base = executable.canonical_path.split("/").pop() ?? "";
  return /^node(js)?[0-9.]*(\.exe)?$/.test(base)
    ? "node"
    : /^bun[a-z0-9-]*(\.exe)?$/.test(base)
      ? "bun"
      : null;
}

export function jsRuntimeOf(input: AdapterPlanInput, adapter: string): JsRuntime {
  const base = input.workloadExecutable.canonical_path.split("/").pop() ?? "";
  const version = (input.workloadVersion ?? "").trim().split("\n")[0] ?? "";
  const name = runtimeNameOf(input.workloadExecutable);
  const node = name === "node" ? /^v(\d+)\.\d+\.\d+/.exec(version) : null;
  if (node) return { name: "node", version: version.slice(1), major: Number(node[1]) };
  const bun = name === "bun" ? /^(\d+)\.\d+\.\d+/.exec(version) : null;
  if (bun) return { name: "bun", version, major: Number(bun[1]) };
  if (name && !input.workloadVersion && input.workloadExecutable.trust === "project_bound") {
    // A project executable is project code: its --version runs only inside the managed sandbox.
    throw new FlameoxError(
      "CAPABILITY_UNAVAILABLE",
      `Cannot capture with ${adapter}: ${input.workloadExecutable.requested} is a project ` +
        `executable, whose version is probed only inside managed containment`,
      {
        details: { adapter, status: "permission_required" },
        remediation: [
          "Plan with containment managed",
          'Or declare the workload with a node or bun installed on the host (argv = ["node", ' +
            '"script.js"])',
        ],
      },
    );
  }
  throw new FlameoxError(
    "CAPABILITY_UNAVAILABLE",
    `Cannot capture with ${adapter}: the workload's ` +
      `executable ${input.workloadExecutable.requested} is not Node.js or Bun (it resolves ` +
      `to ${base}${version ? `, version output ${JSON.stringify(version.slice(0, 60))}` : ""})`,
    {
      details: { adapter, status: "incompatible" },
      remediation: [
        'Declare the workload with node or bun as argv[0], e.g. argv = ["node", "script.js"]',
        "Use the command adapter for other executables",
      ],
    },
  );
}

/**
 * Inserts runtime flags right after the runtime executable, before the script and its arguments.
 */
export function withRuntimeFlags(input: AdapterPlanInput, flags: CommandPart[]): CommandPart[] {
  return [input.workloadExecutable.path, ...flags, ...input.workloadArgv.slice(1)];
}

/** Capability of the V8 adapters: available when node or bun is on the child PATH. */
export function jsRuntimeAssessment(facts: HostFacts, limitations: Limitation[]): Assessment {
  const present = (["node", "bun"] as const).flatMap((name) => {
    const tool = facts.tools[name];
    return tool && "executable" in tool ? [`${name} ${tool.version ?? "(version unknown)"}`] : [];
  });
  return present.length > 0
    ? {
        status: "available",
        reason: `JavaScript runtime(s) on PATH: ${present.join(", ")}`,
        features: { runtimes: present.join(", ") },
        limitations,
      }
    : {
        status: "absent",
        reason: "neither node nor bun is on the child PATH",
        features: {},
        limitations,
      };
}

/** What every adapter that drives a Node.js or Bun runtime's own profiler has in common. */
export const JS_RUNTIME_ADAPTER_BASE = {
  tools: [
    { name: "node", versionArgs: ["--version"], optional: true },
    { name: "bun", versionArgs: ["--version"], optional: true },
  ],
  permissionSensitive: false,
  sysctl: [],
  probesWorkloadExecutable: true,
  recognizesExecutable: (executable: ResolvedExecutable) => runtimeNameOf(executable) !== null,
  readinessProbes: () => [],
  assess: (facts: HostFacts) => jsRuntimeAssessment(facts, []),
} satisfies Partial<CaptureAdapter>;

/** The runtime of a plan, refusing Node.js releases older than 12 (no --cpu-prof/--heap-prof). */
export function modernJsRuntimeOf(
  input: AdapterPlanInput,
  adapter: string,
  flag: string,
): JsRuntime {
  const runtime = jsRuntimeOf(input, adapter);
  if (runtime.name === "node" && runtime.major < 12) {
    throw new FlameoxError(
      "CAPABILITY_UNAVAILABLE",
      `Cannot capture with ${adapter}: Node.js ${runtime.version} has no ${flag} (Node 12 or ` +
        `newer is needed)`,
      {
        details: { adapter, status: "incompatible" },
      },
    );
  }
  return runtime;
}
