/**
 * `flameox analyze compare` and `analyze record-comparison`: two run sets, two benchmarks of
 * one run, or two runs compared. Thin: parse, call StudyService, render.
 */
import { defineCommand } from "citty";
import type { ComparisonResult } from "../../analysis/comparison/compare-run-sets.ts";
import {
  answerBenchmarkComparison,
  answerComparison,
  answerRecordedComparison,
  answerRunsComparison,
  BenchmarkComparisonRequest,
  ComparisonRequest,
  RunsComparisonRequest,
} from "../../application/requests/comparison-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { StudyService } from "../../application/study/study-service.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { commonArgs, execute, setExitCode } from "../context.ts";
import { structuredInput } from "../json-input.ts";
import { safeText } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const pct = (x: number | null) =>
  x === null ? "n/a" : `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;
const renderComparison = (r: ComparisonResult) =>
  [
    `${r.metric} (${r.unit ?? "?"}): ${pct(r.relative_change)} ` +
      `[${pct(r.confidence_low)}, ${pct(r.confidence_high)}] ` +
      `at ${Math.round(100 * r.confidence_level)}%, ${r.complete_pair_n} pairs`,
    `decision: ${r.decision} (threshold ±${pct(r.practical_threshold)}, ${r.polarity}); ` +
      `validity: ${r.validity}`,
    `wilcoxon p: ${r.wilcoxon?.p_value?.toPrecision(3) ?? "n/a"} ` +
      `(${r.wilcoxon?.method ?? "none"}); outlier ` +
      `blocks: ${r.outlier_blocks.join(", ") || "none"}`,
    ...r.mismatches.map(
      (m) => `mismatch ${m.code}${m.invalidating ? " (invalidating)" : ""}: ${safeText(m.message)}`,
    ),
    ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
  ].join("\n");

const compareArgs = {
  ...commonArgs,
  input: { type: "positional", required: true, description: "CompareRunSetsRequest JSON or @file" },
} as const;
const study = (s: { ws: StudyService["ws"] }) => new StudyService(s.ws);

export const compareCommand = defineCommand({
  meta: {
    name: "compare",
    description:
      "Paired comparison of two run sets (read-only preview); or, with --run, of two " +
      "benchmarks (hyperfine commands, pyperf benchmarks) inside one imported file",
  },
  args: {
    ...commonArgs,
    input: {
      type: "positional",
      required: false,
      description: "CompareRunSetsRequest JSON or @file (not with --run)",
    },
    run: {
      type: "string",
      description:
        "RUN_ID of one imported benchmark file: compare --baseline-scope with " +
        "--candidate-scope inside it",
    },
    "baseline-run": {
      type: "string",
      description:
        "RUN_ID: compare this run's samples of --metric (and --scope) with --candidate-run's",
    },
    "candidate-run": { type: "string", description: "with --baseline-run: the candidate run" },
    scope: {
      type: "string",
      description: "with --baseline-run: the benchmark (scope) compared in both runs",
    },
    "baseline-scope": {
      type: "string",
      description: "with --run: the baseline benchmark (hyperfine command, pyperf benchmark name)",
    },
    "candidate-scope": { type: "string", description: "with --run: the candidate benchmark" },
    metric: { type: "string", description: "with --run: the metric (default wall_time)" },
    threshold: {
      type: "string",
      description: "with --run: the practical threshold as a fraction (default 0.05)",
    },
    polarity: {
      type: "string",
      description: "with --run: lower_is_better (default), higher_is_better or neutral",
    },
  },
  run: async ({ args }) => {
    let invalid = false;
    await execute(
      args,
      async (s) => {
        const r =
          args["baseline-run"] || args["candidate-run"]
            ? await answerRunsComparison(study(s), runsRequest(args))
            : args.run
              ? await answerBenchmarkComparison(study(s), scopeRequest(args))
              : await answerComparison(
                  study(s),
                  checkRequest(
                    ComparisonRequest,
                    structuredInput(requiredInput(args.input), "input"),
                  ),
                );
        invalid = r.validity === "invalid";
        return r;
      },
      renderComparison,
    );
    if (invalid) setExitCode(6);
  },
});

function requiredInput(input: string | undefined): string {
  if (!input)
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      "Pass a CompareRunSetsRequest (JSON or @file), or --run RUN_ID with --baseline-scope " +
        "and --candidate-scope",
      { details: { field: "input" } },
    );
  return input;
}

/**
 * The comparison of two runs `--baseline-run` asks for, with the CLI's defaults (wall_time, 5%,
 * lower is better).
 */
function runsRequest(args: {
  run?: string;
  "baseline-run"?: string;
  "candidate-run"?: string;
  scope?: string;
  metric?: string;
  threshold?: string;
  polarity?: string;
  input?: string;
}) {
  const bad = (field: string, message: string) =>
    new FlameoxError("INVALID_ARGUMENTS", message, { details: { field } });
  if (args.input || args.run)
    throw bad(
      "baseline-run",
      "Pass either --baseline-run with --candidate-run, --run, or a request, not more than one",
    );
  if (!args["baseline-run"] || !args["candidate-run"])
    throw bad("candidate-run", "--baseline-run needs --candidate-run (and the other way round)");
  return checkRequest(RunsComparisonRequest, {
    baseline_run_id: args["baseline-run"],
    candidate_run_id: args["candidate-run"],
    scope: args.scope ?? null,
    metric: args.metric ?? "wall_time",
    practical_threshold: args.threshold === undefined ? 0.05 : numberFlag(args.threshold),
    polarity: args.polarity ?? "lower_is_better",
  });
}

/**
 * The benchmark comparison `--run` asks for, with the CLI's defaults (wall_time, 5%, lower is
 * better).
 */
function scopeRequest(args: {
  run?: string;
  "baseline-scope"?: string;
  "candidate-scope"?: string;
  metric?: string;
  threshold?: string;
  polarity?: string;
  input?: string;
}) {
  const bad = (field: string, message: string) =>
    new FlameoxError("INVALID_ARGUMENTS", message, { details: { field } });
  if (args.input) throw bad("input", "Pass either a request or --run, not both");
  if (!args["baseline-scope"] || !args["candidate-scope"])
    throw bad(
      "baseline-scope",
      "--run needs --baseline-scope and --candidate-scope (see `flameox measurements query " +
        "--run-id RUN_ID` for the scopes)",
    );
  return checkRequest(BenchmarkComparisonRequest, {
    run_id: args.run,
    baseline_scope: args["baseline-scope"],
    candidate_scope: args["candidate-scope"],
    metric: args.metric ?? "wall_time",
    practical_threshold: args.threshold === undefined ? 0.05 : numberFlag(args.threshold),
    polarity: args.polarity ?? "lower_is_better",
  });
}

export const recordComparisonCommand = defineCommand({
  meta: { name: "record-comparison", description: "Compute and persist a comparison record" },
  args: compareArgs,
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerRecordedComparison(
          study(s),
          checkRequest(ComparisonRequest, structuredInput(args.input, "input")),
        ),
      (r) => `comparison ${r.comparison_id}\n${renderComparison(r)}`,
    ),
});
