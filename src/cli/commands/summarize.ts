/** `flameox summarize RUN…`: a bounded Markdown (or --json) digest of what is known about runs. */
import { defineCommand } from "citty";
import { commonArgs, execute } from "../context.ts";
import { renderSummary } from "../render-summary.ts";
import { parseLimit } from "./records.ts";

export const summarizeCommand = defineCommand({
  meta: {
    name: "summarize",
    description: "A bounded Markdown digest of runs: artifacts with ids, top hotspots with frame ids, measurements, limitations; each section names the command that gives its figures in full",
  },
  args: {
    ...commonArgs,
    run_ids: { type: "positional", required: true, description: "RUN_ID... (up to 10)" },
    hotspots: { type: "string", description: "Hotspots per run (default 5, at most 25)", valueHint: "N" },
    "measurement-groups": { type: "string", description: "Measurement groups per run (default 20, at most 100)", valueHint: "N" },
  },
  run: ({ args }) =>
    execute(
      args,
      (s) => s.recipes().summarizeRuns((args._ as string[]).length > 0 ? (args._ as string[]) : [args.run_ids], {
        hotspots: parseLimit(args.hotspots, "hotspots"),
        measurementGroups: parseLimit(args["measurement-groups"], "measurement-groups"),
      }),
      renderSummary,
    ),
});
