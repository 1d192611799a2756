/** `flameox summarize RUN…`: a bounded Markdown (or --json) digest of what is known about runs, or with --compare of what moved between two. */
import { defineCommand } from "citty";
import { FlameoxError } from "../../domain/errors.ts";
import { commonArgs, execute } from "../context.ts";
import { renderComparisonSummary } from "../render-comparison-summary.ts";
import { renderSummary } from "../render-summary.ts";
import { parseLimit } from "./records.ts";

export const summarizeCommand = defineCommand({
  meta: {
    name: "summarize",
    description:
      "A bounded Markdown digest of runs: artifacts with ids, top hotspots with frame ids, measurements, limitations; each section names the command that gives its figures in full. " +
      "With --compare and two runs (BASE CANDIDATE): the functions whose self and total moved most per metric, and each shared measurement's change with its interval",
  },
  args: {
    ...commonArgs,
    run_ids: { type: "positional", required: true, description: "RUN_ID... (up to 10; with --compare, BASE CANDIDATE)" },
    compare: { type: "boolean", default: false, description: "Digest the comparison of two runs: BASE CANDIDATE" },
    hotspots: { type: "string", description: "Hotspots per run (default 5, at most 25)", valueHint: "N" },
    "measurement-groups": { type: "string", description: "Measurement groups per run (default 20, at most 100)", valueHint: "N" },
    functions: { type: "string", description: "with --compare: functions per metric and ranking (default 5, at most 25)", valueHint: "N" },
    measurements: { type: "string", description: "with --compare: measurements compared (default 10, at most 50)", valueHint: "N" },
  },
  run: ({ args }) => {
    const runIds = (args._ as string[]).length > 0 ? (args._ as string[]) : [args.run_ids];
    if (args.compare) {
      return execute(
        args,
        (s) => {
          if (runIds.length !== 2) throw new FlameoxError("INVALID_ARGUMENTS", `--compare takes two runs, BASE CANDIDATE, but found ${runIds.length}`, { details: { field: "run_ids" } });
          return s.recipes().summarizeComparison(runIds[0]!, runIds[1]!, { functions: parseLimit(args.functions, "functions"), measurements: parseLimit(args.measurements, "measurements") });
        },
        renderComparisonSummary,
      );
    }
    return execute(
      args,
      (s) => s.recipes().summarizeRuns(runIds, {
        hotspots: parseLimit(args.hotspots, "hotspots"),
        measurementGroups: parseLimit(args["measurement-groups"], "measurement-groups"),
      }),
      renderSummary,
    );
  },
});
