/**
 * `hyperfine`: repeated timed runs of the workload with warmups, exported as JSON with
 * every run's time. hyperfine runs the command without a shell (`--shell=none`), from
 * a string quoted so that it splits back into the exact argv.
 */
import { type } from "arktype";
import type { Limitation } from "../../../domain/evidence-status.ts";
import { MAX_TIMEOUT_SECONDS } from "../../../domain/workload/workload-schema.ts";
import {
  type AdapterPlan,
  type Assessment,
  type CaptureAdapter,
  type Collected,
  boundWorkload,
  toolOf,
} from "../capture-adapter.ts";
import { joinWords } from "./shell-words.ts";
import { summarizeHyperfine } from "./summary.ts";

const EXPORT = "hyperfine.json";

export const hyperfineCaptureAdapter: CaptureAdapter = {
  name: "hyperfine",
  version: "1",
  description:
    "Repeated wall-time benchmark of the workload (hyperfine, no shell), JSON export with " +
    "every run's time",
  tools: [{ name: "hyperfine", versionArgs: ["--version"] }],
  permissionSensitive: false,
  sysctl: [],
  probesWorkloadExecutable: false,
  options: type({
    "+": "reject",
    "runs?": type("2 <= number.integer <= 1000").describe("timed runs (default 10)"),
    "warmup?": type("0 <= number.integer <= 100").describe("untimed warmup runs first (default 1)"),
    "ignore_failure?": type("boolean").describe(
      "keep timing when the workload exits non-zero (default false)",
    ),
  }),
  readinessProbes: () => [],
  assess(facts): Assessment {
    const tool = toolOf(facts, "hyperfine");
    if (!tool)
      return {
        status: "absent",
        reason: "hyperfine is not on the child PATH (Debian: apt-get install hyperfine)",
        features: {},
        limitations: [],
      };
    const version = /(\d+)\.(\d+)/.exec(tool.version ?? "");
    // --shell=none arrived in hyperfine 1.13; without it every run would go through a shell.
    if (
      !version ||
      Number(version[1]) < 1 ||
      (Number(version[1]) === 1 && Number(version[2]) < 13)
    ) {
      return {
        status: "incompatible",
        reason:
          `hyperfine ${tool.version ?? "(unknown version)"} lacks --shell=none (1.13 or newer ` +
          `is needed)`,
        features: {},
        limitations: [],
      };
    }
    return {
      status: "available",
      reason: `${tool.version}`,
      features: { version: tool.version },
      limitations: [],
    };
  },
  plan(input): AdapterPlan {
    const runs = (input.options.runs as number | undefined) ?? 10;
    const warmup = (input.options.warmup as number | undefined) ?? 1;
    const ignoreFailure = (input.options.ignore_failure as boolean | undefined) ?? false;
    const hyperfine = input.tools.hyperfine!;
    return {
      command: [
        hyperfine.path,
        "--shell=none",
        "--style=basic",
        "--runs",
        String(runs),
        "--warmup",
        String(warmup),
        ...(ignoreFailure ? ["--ignore-failure"] : []),
        "--export-json",
        { output: EXPORT },
        "--",
        joinWords(boundWorkload(input)),
      ],
      environment: {},
      postSteps: [],
      // The workload's timeout bounds one run; the capture allows every run and warmup.
      deadlineSeconds: Math.min(MAX_TIMEOUT_SECONDS, input.timeoutSeconds * (runs + warmup) + 10),
      effectiveOptions: { runs, warmup, ignore_failure: ignoreFailure, shell: "none" },
      producer: { name: "hyperfine", version: input.toolVersions.hyperfine ?? null },
      limitations: [],
    };
  },
  collect(input): Collected {
    const file = input.files.find((f) => f.name === EXPORT && f.size > 0);
    if (!file)
      return {
        artifacts: [],
        summary: null,
        limitations: [
          {
            code: "no_export_written",
            message: `hyperfine wrote no JSON export (the run ended as ${input.termination})`,
          },
        ],
      };
    const summary = summarizeHyperfine(
      new TextDecoder().decode(input.read(EXPORT, 64 * 1024 * 1024)),
    );
    const limitations: Limitation[] = [];
    const extractor =
      input.tables.includes("measurements") && input.extractors.includes("hyperfine")
        ? "hyperfine"
        : null;
    if (!extractor) {
      limitations.push({
        code: "measurements_not_imported",
        message:
          "The hyperfine JSON is kept as a native artifact; no measurements extractor for it " +
          "is installed yet",
      });
    }
    if (typeof summary === "string")
      limitations.push({ code: "export_unreadable", message: summary });
    return {
      artifacts: [
        {
          file: EXPORT,
          displayName: EXPORT,
          kind: "benchmark_samples",
          mediaType: "application/json",
          extractor,
        },
      ],
      summary: typeof summary === "string" ? null : { ...summary },
      limitations,
    };
  },
};
