/**
 * `flameox summarize RUN…`: a bounded Markdown (or --json) digest of what is known about runs, or
 * with --compare of what moved between two.
 */
import { defineCommand } from "citty";
import { commonArgs, execute } from "../context.ts";
import { renderComparisonSummary } from "../render-comparison-summary.ts";
import { renderSummary } from "../render-summary.ts";
import { numberFlag, positionals } from "../request-flags.ts";

export const summarizeCommand = defineCommand({
  meta: {
    name: "summarize",
    description:
      "A bounded Markdown digest of runs: artifacts with ids, top hotspots with frame ids, " +
      "measurements, limitations; each section names the command that gives its figures in " +
      "full. " +
      "With --compare and two runs (BASE CANDIDATE): the functions whose self and total " +
      "moved most per metric, and each shared measurement's change with its interval",
  },
  args: {
    ...commonArgs,
    run_ids: {
      type: "positional",
      required: true,
      description: "RUN_ID... (up to 10; with --compare, BASE CANDIDATE)",
    },
    compare: {
      type: "boolean",
      default: false,
      description: "Digest the comparison of two runs: BASE CANDIDATE",
    },
    hotspots: {
      type: "string",
      description: "Hotspots per run (default 5, at most 25)",
      valueHint: "N",
    },
    "measurement-groups": {
      type: "string",
      description: "Measurement groups per run (default 20, at most 100)",
      valueHint: "N",
    },
    functions: {
      type: "string",
      description: "with --compare: functions per metric and ranking (default 5, at most 25)",
      valueHint: "N",
    },
    measurements: {
      type: "string",
      description: "with --compare: measurements compared (default 10, at most 50)",
      valueHint: "N",
    },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        // Loaded here, not at the top: the request schema brings arktype (~0.2 s), which `--help`
        // does not need.
        const [{ answerRunsSummary, RunsSummaryRequest }, { checkRequest }] = await Promise.all([
          import("../../application/requests/summary-request.ts"),
          import("../../application/requests/request-schema.ts"),
        ]);
        return answerRunsSummary(
          s,
          checkRequest(RunsSummaryRequest, {
            run_ids: positionals(args, args.run_ids),
            compare: args.compare || undefined,
            hotspots: numberFlag(args.hotspots),
            measurement_groups: numberFlag(args["measurement-groups"]),
            functions: numberFlag(args.functions),
            measurements: numberFlag(args.measurements),
          }),
        );
      },
      (r) => (r.summary === "comparison.summary" ? renderComparisonSummary(r) : renderSummary(r)),
    ),
});
