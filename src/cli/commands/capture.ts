/**
 * `flameox capture plan|run ADAPTER --workload NAME [--parameters JSON] [--adapter-options JSON]
 * [--containment MODE]`. Both take a declared workload only: no argv, cwd or shell
 * string. `plan` binds and previews (its plan_id dies with this process); `run` plans
 * and executes in one process.
 */
import { defineCommand } from "citty";
import type { CaptureResult } from "../../application/capture/capture-result.ts";
import type { PlanPreview } from "../../application/capture/capture-plan.ts";
import {
  answerCapturePlan,
  CapturePlanRequest,
  planOf,
} from "../../application/requests/capture-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { commonArgs, execute, exitCode, setExitCode } from "../context.ts";
import { parseJsonObject } from "../json-input.ts";
import { renderCapture, renderPlan } from "../render-capture.ts";

const captureArgs = {
  ...commonArgs,
  adapter: {
    type: "positional",
    required: true,
    description: "command | v8-cpu | v8-heap | perf | hyperfine",
  },
  workload: {
    type: "string",
    required: true,
    description: "Name of a workload declared in flameox.toml",
    valueHint: "NAME",
  },
  parameters: {
    type: "string",
    description: "Parameter values as a JSON object (or @file)",
    valueHint: "JSON",
  },
  "adapter-options": {
    type: "string",
    description: 'Adapter options as a JSON object (or @file), e.g. {"interval_us":200}',
    valueHint: "JSON",
  },
  containment: {
    type: "string",
    description: "trusted_local (default policy; reported as uncontained) | managed (bubblewrap)",
    valueHint: "MODE",
  },
} as const;

type CaptureArgs = {
  adapter: string;
  workload: string;
  parameters?: string;
  "adapter-options"?: string;
  containment?: string;
};

const KNOWN = new Set([
  "_",
  "adapter",
  "workload",
  "parameters",
  "adapter-options",
  "adapterOptions",
  "containment",
  "json",
  "workspace",
]);

/**
 * A capture names a declared workload; an extra positional, `-- argv` or any other option (--cwd,
 * --argv, …) is refused, not ignored.
 */
function refuseAdHoc(args: Record<string, unknown>): void {
  const extra = ((args._ as string[] | undefined) ?? []).slice(1);
  // citty adds a camelCase twin of every --kebab-case option; name each option once.
  const unknown = [
    ...new Set(
      Object.keys(args)
        .filter((k) => !KNOWN.has(k))
        .map((k) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)),
    ),
  ];
  if (extra.length > 0 || unknown.length > 0) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot capture ad hoc commands: ` +
        [...extra.map((e) => JSON.stringify(e)), ...unknown.map((k) => `--${k}`)].join(", ") +
        ` ` +
        (extra.length + unknown.length === 1 ? "is" : "are") +
        ` not accepted; declare a workload in flameox.toml`,
      {
        details: { field: unknown[0] ?? "argv" },
        remediation: [
          "Declare the command as [workloads.NAME] in flameox.toml, then pass --workload NAME",
        ],
      },
    );
  }
}

function planRequest(args: CaptureArgs): CapturePlanRequest {
  refuseAdHoc(args as unknown as Record<string, unknown>);
  return checkRequest(CapturePlanRequest, {
    adapter: args.adapter,
    workload: args.workload,
    parameters: parseJsonObject(args.parameters, "parameters"),
    adapter_options: parseJsonObject(args["adapter-options"], "adapter-options"),
    containment: args.containment,
  });
}

/**
 * Exit code of a finished capture: its execution outcome first, then a failed validation
 * (negative).
 */
function captureExit(result: CaptureResult): number {
  if (result.execution_status === "timed_out" || result.execution_status === "cancelled") return 8;
  if (result.execution_status !== "succeeded") return 4;
  if (result.extraction_status === "quarantined" || result.extraction_status === "failed") return 4;
  return result.validation_status === "failed" || result.validation_status === "error" ? 1 : 0;
}

export const captureCommand = defineCommand({
  meta: {
    name: "capture",
    description: "Plan or run a capture of a declared workload under a capture adapter",
  },
  subCommands: {
    plan: defineCommand({
      meta: {
        name: "plan",
        description:
          "Bind and preview a capture without running it (the plan_id is only valid in this " +
          "process)",
      },
      args: captureArgs,
      run: ({ args }) =>
        execute(
          args,
          async (s): Promise<PlanPreview> =>
            answerCapturePlan(await s.capture(), planRequest(args)),
          renderPlan,
        ),
    }),
    run: defineCommand({
      meta: {
        name: "run",
        description: "Plan and execute a capture in one process; prints the run",
      },
      args: captureArgs,
      async run({ args }) {
        let result: CaptureResult | null = null;
        const tty = process.stderr.isTTY === true && !args.json;
        // Ctrl-C or a polite kill cancels the capture: the workload group is stopped and the run
        // recorded as cancelled.
        const cancel = new AbortController();
        const onSignal = () => cancel.abort();
        process.once("SIGINT", onSignal);
        process.once("SIGTERM", onSignal);
        try {
          await execute(
            args,
            async (s) =>
              (result = await (await s.capture()).run(planOf(planRequest(args)), {
                signal: cancel.signal,
                onProgress: tty ? (phase) => process.stderr.write(`${phase}…\n`) : undefined,
              })),
            renderCapture,
          );
        } finally {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        }
        if (result && exitCode === 0) setExitCode(captureExit(result));
      },
    }),
  },
});
