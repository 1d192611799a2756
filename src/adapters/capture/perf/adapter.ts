/**
 * `perf`: Linux `perf record` with call graphs around the workload, then `perf script`
 * to render the samples as text. Both the native perf.data and the script text are
 * kept; the script text is extracted by the `perf-script` format adapter, so a capture
 * ends with hotspots. Readiness is an active probe (a tiny `perf record` through the
 * broker), because only the kernel knows whether perf_event_open is permitted here.
 *
 * A Node.js workload runs with `--perf-basic-prof` (declared in the plan's options and
 * limitations, and switchable off): without it V8's JIT-compiled JavaScript has no
 * symbols and perf can only print `[unknown]` for it.
 */
import { type } from "arktype";
import type { Limitation } from "../../../domain/evidence-status.ts";
import {
  type AdapterPlan,
  type AdapterPlanInput,
  type Assessment,
  type CaptureAdapter,
  type CommandPart,
  type Collected,
  boundWorkload,
  toolOf,
} from "../capture-adapter.ts";
import { runtimeNameOf, withRuntimeFlags } from "../v8-runtime.ts";

const PARANOID = "kernel/perf_event_paranoid";
const DATA = "perf.data";
const SCRIPT = "perf.script.txt";

export const perfCaptureAdapter: CaptureAdapter = {
  name: "perf",
  version: "1",
  description:
    "Linux perf record -g sampling of the whole process tree, with perf script text; needs " +
    "perf_event_open permission",
  tools: [{ name: "perf", versionArgs: ["--version"] }],
  permissionSensitive: true,
  sysctl: [PARANOID],
  probesWorkloadExecutable: false,
  options: type({
    "+": "reject",
    "frequency_hz?": type("1 <= number.integer <= 20000").describe(
      "samples per second (default 999)",
    ),
    "call_graph?": type("'fp' | 'dwarf'").describe(
      "stack unwinding: fp (frame pointers, default) or dwarf",
    ),
    "perf_basic_prof?": type("boolean").describe(
      "Node.js workloads: run node with --perf-basic-prof so JIT frames get names (default true)",
    ),
  }),
  readinessProbes(facts) {
    const perf = toolOf(facts, "perf");
    return perf
      ? [
          {
            id: "record",
            tool: "perf",
            args: [
              "record",
              "-q",
              "-F",
              "99",
              "-g",
              "-o",
              { output: "probe.data" },
              "--",
              perf.executable.path,
              "--version",
            ],
            timeoutMs: 15_000,
          },
        ]
      : [];
  },
  assess(facts): Assessment {
    const perf = toolOf(facts, "perf");
    const paranoid = facts.sysctl[PARANOID] ?? null;
    const features = {
      perf_event_paranoid: paranoid === null ? null : Number(paranoid),
      version: perf?.version ?? null,
    };
    if (!perf)
      return {
        status: "absent",
        reason: "perf is not on the child PATH (Debian: apt-get install linux-perf)",
        features,
        limitations: [],
      };
    const probe = facts.probes.record;
    if (!probe)
      return {
        status: "incompatible",
        reason: "the readiness probe did not run",
        features,
        limitations: [],
      };
    if (probe.exitCode === 0 && !probe.timedOut)
      return {
        status: "available",
        reason: "perf record ran a probe process successfully",
        features,
        limitations: limitationsFor(paranoid, facts.euid),
      };
    const said =
      probe.stderr
        .trim()
        .split("\n")
        .find((l) => l.trim()) ?? `exit code ${probe.exitCode}`;
    if (/paranoid|permission|not permitted|EACCES|EPERM|No permission/i.test(probe.stderr)) {
      return {
        status: "permission_required",
        reason:
          `perf_event_open is not permitted here ` +
          `(kernel.perf_event_paranoid=${paranoid ?? "unknown"}): ${said.slice(0, 200)}`,
        features,
        limitations: [
          {
            code: "perf_permission",
            message:
              "Lower kernel.perf_event_paranoid (e.g. sysctl kernel.perf_event_paranoid=1) " +
              "or grant CAP_PERFMON",
          },
        ],
      };
    }
    return {
      status: "incompatible",
      reason: `perf record failed its probe: ${said.slice(0, 200)}`,
      features,
      limitations: [],
    };
  },
  plan(input): AdapterPlan {
    const frequency = (input.options.frequency_hz as number | undefined) ?? 999;
    const callGraph = (input.options.call_graph as string | undefined) ?? "fp";
    const perf = input.tools.perf!;
    const jit = jitSymbols(input);
    return {
      command: [
        perf.path,
        "record",
        "-q",
        "-F",
        String(frequency),
        "--call-graph",
        callGraph,
        "-o",
        { output: DATA },
        "--",
        ...jit.workload,
      ],
      environment: {},
      postSteps: [
        {
          id: "script",
          tool: "perf",
          args: ["script", "-i", { output: DATA }, "--no-inline"],
          stdoutTo: SCRIPT,
          timeoutSeconds: 300,
        },
      ],
      deadlineSeconds: input.timeoutSeconds,
      effectiveOptions: {
        frequency_hz: frequency,
        call_graph: callGraph,
        perf_basic_prof: jit.perfBasicProf,
      },
      producer: { name: "perf", version: input.toolVersions.perf ?? null },
      limitations: jit.limitations,
    };
  },
  collect(input): Collected {
    const has = (name: string) => input.files.some((f) => f.name === name && f.size > 0);
    const limitations: Limitation[] = [];
    const artifacts: Collected["artifacts"] = [];
    if (has(DATA))
      artifacts.push({
        file: DATA,
        displayName: DATA,
        kind: "sample_profile",
        mediaType: "application/x-perf-data",
        extractor: null,
      });
    else
      limitations.push({
        code: "no_profile_written",
        message: `perf wrote no perf.data (the run ended as ${input.termination})`,
      });
    const script = input.postSteps.script;
    if (has(SCRIPT) && script?.exitCode === 0) {
      const extractor = input.extractors.includes("perf-script") ? "perf-script" : null;
      artifacts.push({
        file: SCRIPT,
        displayName: SCRIPT,
        kind: "sample_profile",
        mediaType: "text/x-perf-script",
        extractor,
      });
      if (!extractor)
        limitations.push({
          code: "no_perf_extractor",
          message:
            "perf script text is kept as a native artifact; no perf-script extractor is installed",
        });
    } else if (has(DATA)) {
      limitations.push({
        code: "perf_script_failed",
        message:
          `perf script did not render the ` +
          `samples: ` +
          (script
            ? script.stderr.trim().split("\n")[0]?.slice(0, 200) || `exit code ${script.exitCode}`
            : "it did not run"),
      });
    }
    return {
      artifacts,
      summary: { perf_data_bytes: input.files.find((f) => f.name === DATA)?.size ?? 0 },
      limitations,
    };
  },
};

/**
 * The workload argv, with `--perf-basic-prof` after node's executable unless switched off.
 * V8 then writes /tmp/perf-PID.map, which `perf script` reads to name JIT frames; the
 * file stays in /tmp after the run (V8 never removes it).
 */
function jitSymbols(input: AdapterPlanInput): {
  workload: CommandPart[];
  perfBasicProf: boolean | null;
  limitations: Limitation[];
} {
  const runtime = runtimeNameOf(input.workloadExecutable);
  if (runtime !== "node") {
    const limitations: Limitation[] =
      runtime === "bun"
        ? [
            {
              code: "unnamed_jit_frames",
              message:
                "Bun has no perf map option: JavaScriptCore's JIT-compiled frames show as " +
                "[unknown] in perf",
            },
          ]
        : [];
    return { workload: boundWorkload(input), perfBasicProf: null, limitations };
  }
  if (input.options.perf_basic_prof === false) {
    return {
      workload: boundWorkload(input),
      perfBasicProf: false,
      limitations: [
        {
          code: "unnamed_jit_frames",
          message:
            "perf_basic_prof = false: Node.js runs without --perf-basic-prof, so its " +
            "JIT-compiled JavaScript frames show as [unknown]",
        },
      ],
    };
  }
  return {
    workload: withRuntimeFlags(input, ["--perf-basic-prof"]),
    perfBasicProf: true,
    limitations: [
      {
        code: "perf_basic_prof",
        message:
          "Node.js runs with --perf-basic-prof so perf can name JIT-compiled JavaScript; V8 " +
          "writes /tmp/perf-PID.map and leaves it there",
      },
    ],
  };
}

function limitationsFor(paranoid: string | null, euid: number | null): Limitation[] {
  const out: Limitation[] = [
    {
      code: "perf_data_host_metadata",
      message:
        "perf.data headers name the host and command line; the artifact is registered as internal",
    },
  ];
  if (paranoid !== null && Number(paranoid) >= 2 && euid !== 0) {
    out.push({
      code: "user_space_only",
      message:
        `kernel.perf_event_paranoid=${paranoid}: only user-space samples of the workload are ` +
        `recorded`,
    });
  }
  return out;
}
