/**
 * `flameox measurements query`, `run-sets freeze|show`, `experiment plan|run|show|trials`
 * and the comparison/scaling subcommands of `analyze`. Thin: parse, call StudyService, render.
 */
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { FlameoxError } from "../../domain/errors.ts";
import { StudyService } from "../../application/study/study-service.ts";
import type { ComparisonResult } from "../../analysis/comparison/compare-run-sets.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import {
  answerBenchmarkComparison,
  answerComparison,
  answerExperiment,
  answerExperimentPlan,
  answerMeasurementsQuery,
  answerRecordedComparison,
  answerRunSet,
  answerRunSetFreeze,
  answerRunsComparison,
  answerScaling,
  answerTrialsPage,
  BenchmarkComparisonRequest,
  ComparisonRequest,
  RunSetLookupRequest,
  RunsComparisonRequest,
  ExperimentLookupRequest,
  ExperimentPlanRequest,
  MeasurementsQueryRequest,
  RunSetFreezeRequest,
  TrialsPageRequest,
} from "../../application/requests/study-requests.ts";
import { commonArgs, execute, setExitCode } from "../context.ts";
import { safeText, table } from "../output.ts";
import { numberFlag, positionals } from "../request-flags.ts";

/** A `<structured-input>`: a JSON string, or `@file` to read it from a file. */
export function structuredInput(value: string, field: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith("@")) text = readFileSync(value.slice(1), "utf8");
  try {
    const parsed = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("not an object");
    return parsed;
  } catch (error) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected ${field} to be a JSON object or @file but it is not (${(error as Error).message})`,
      { details: { field } },
    );
  }
}

const pct = (x: number | null) =>
  x === null ? "n/a" : `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;
const renderComparison = (r: ComparisonResult) =>
  [
    `${r.metric} (${r.unit ?? "?"}): ${pct(r.relative_change)} [${pct(r.confidence_low)}, ${pct(r.confidence_high)}] at ${Math.round(100 * r.confidence_level)}%, ${r.complete_pair_n} pairs`,
    `decision: ${r.decision} (threshold ±${pct(r.practical_threshold)}, ${r.polarity}); validity: ${r.validity}`,
    `wilcoxon p: ${r.wilcoxon?.p_value?.toPrecision(3) ?? "n/a"} (${r.wilcoxon?.method ?? "none"}); outlier blocks: ${r.outlier_blocks.join(", ") || "none"}`,
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
      "Paired comparison of two run sets (read-only preview); or, with --run, of two benchmarks (hyperfine commands, pyperf benchmarks) inside one imported file",
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
        "RUN_ID of one imported benchmark file: compare --baseline-scope with --candidate-scope inside it",
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
      "Pass a CompareRunSetsRequest (JSON or @file), or --run RUN_ID with --baseline-scope and --candidate-scope",
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
      "--run needs --baseline-scope and --candidate-scope (see `flameox measurements query --run-id RUN_ID` for the scopes)",
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

export const scalingCommand = defineCommand({
  meta: {
    name: "scaling",
    description: "Complexity fits of an experiment's metric over its scaling parameter",
  },
  args: { ...commonArgs, experiment_id: { type: "positional", required: true } },
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerScaling(
          study(s),
          checkRequest(ExperimentLookupRequest, { experiment_id: args.experiment_id }),
        ),
      (r) =>
        r.variants
          .map(
            (v) =>
              `${v.variant}: ${v.selection.best_model ?? v.selection.status} (AICc margin ${v.selection.margin?.toFixed(1) ?? "n/a"})\n` +
              table([
                ["INPUT", "TRIALS", "MEDIAN", "CI"],
                ...v.points.map((p) => [
                  String(p.input),
                  String(p.trials),
                  p.median.toPrecision(4),
                  `[${p.confidence_low?.toPrecision(4)}, ${p.confidence_high?.toPrecision(4)}]`,
                ]),
              ]),
          )
          .join("\n"),
    ),
});

export const measurementsCommand = defineCommand({
  meta: { name: "measurements", description: "Benchmark samples" },
  subCommands: {
    query: defineCommand({
      meta: {
        name: "query",
        description: "Raw samples of a run or artifact (warm-ups excluded unless asked)",
      },
      args: {
        ...commonArgs,
        "run-id": { type: "string" },
        "artifact-id": { type: "string" },
        "name-prefix": { type: "string" },
        "include-warmups": { type: "boolean", default: false },
        limit: { type: "string" },
        cursor: { type: "string" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerMeasurementsQuery(
              study(s),
              checkRequest(MeasurementsQueryRequest, {
                run_id: args["run-id"],
                artifact_id: args["artifact-id"],
                name_prefix: args["name-prefix"],
                include_warmups: args["include-warmups"],
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) =>
            [
              `evidence: ${r.evidence.status} (${r.evidence.reason})`,
              table([
                ["NAME", "SCOPE", "VALUE", "UNIT", "AGG", "WARMUP"],
                ...r.items.map((m) => [
                  m.name,
                  safeText(m.scope).slice(0, 40),
                  String(m.value),
                  m.unit,
                  m.aggregation,
                  String(m.is_warmup),
                ]),
              ]),
              r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
        ),
    }),
  },
});

export const runSetsCommand = defineCommand({
  meta: { name: "run-sets", description: "Frozen run sets" },
  subCommands: {
    freeze: defineCommand({
      meta: {
        name: "freeze",
        description: "Freeze runs into a run set pinned to the current corpus commit",
      },
      args: {
        ...commonArgs,
        run_ids: { type: "positional", required: true, description: "RUN_ID..." },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerRunSetFreeze(
              study(s),
              checkRequest(RunSetFreezeRequest, { run_ids: positionals(args, args.run_ids) }),
            ),
          (r) => `run set ${r.run_set_id}: ${r.members.length} member(s) at ${r.corpus_commit_id}`,
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show a run set" },
      args: { ...commonArgs, id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          (s) => answerRunSet(study(s), checkRequest(RunSetLookupRequest, { run_set_id: args.id })),
          (r) =>
            [
              `run set ${r.run_set_id} at ${r.corpus_commit_id}`,
              ...r.members.map(
                (m) =>
                  `${m.run_id} ${m.block_id ?? ""} ${m.included ? "included" : `excluded: ${m.reason}`}`,
              ),
            ].join("\n"),
        ),
    }),
  },
});

/** `experiment plan` and `experiment run` name the same experiment the same way. */
const experimentArgs = {
  ...commonArgs,
  name: { type: "positional", required: true },
  investigation: { type: "string" },
  hypothesis: { type: "string" },
} as const;

const planRequest = (args: { name: string; investigation?: string; hypothesis?: string }) =>
  checkRequest(ExperimentPlanRequest, {
    experiment_name: args.name,
    investigation_id: args.investigation,
    hypothesis_id: args.hypothesis,
  });

export const experimentCommand = defineCommand({
  meta: { name: "experiment", description: "Declared experiments: plan, run, show" },
  subCommands: {
    plan: defineCommand({
      meta: {
        name: "plan",
        description: "Resolve an experiment and show its randomized protocol (runs nothing)",
      },
      args: experimentArgs,
      run: ({ args }) =>
        execute(
          args,
          (s) => answerExperimentPlan(study(s), planRequest(args)),
          (r) =>
            `experiment ${r.protocol.name}: ${r.trials_planned} trials in ${r.protocol.definition.blocks} blocks, seed ${r.protocol.randomization.seed}\ndesign ${r.protocol.definition.experiment_design_id}`,
        ),
    }),
    run: defineCommand({
      meta: {
        name: "run",
        description: "Plan and run every trial of an experiment through the broker",
      },
      args: experimentArgs,
      run: ({ args }) =>
        execute(
          args,
          async (s) => {
            const service = study(s);
            const plan = await answerExperimentPlan(service, planRequest(args));
            return service.runPlannedExperiment(plan.plan_id);
          },
          (r) =>
            `experiment ${r.experiment_id}: ${r.status}; ${JSON.stringify(r.outcome?.counts)}\nrun sets: ${JSON.stringify(r.outcome?.run_set_ids)}`,
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show an experiment's protocol and outcome" },
      args: { ...commonArgs, id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerExperiment(
              study(s),
              checkRequest(ExperimentLookupRequest, { experiment_id: args.id }),
            ),
          (r) =>
            `experiment ${r.experiment_id} (${r.protocol.name}): ${r.status}; ${JSON.stringify(r.outcome?.counts ?? {})}`,
        ),
    }),
    trials: defineCommand({
      meta: {
        name: "trials",
        description: "List an experiment's trials (every attempt, in run order)",
      },
      args: {
        ...commonArgs,
        id: { type: "positional", required: true },
        limit: { type: "string" },
        cursor: { type: "string" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerTrialsPage(
              study(s),
              checkRequest(TrialsPageRequest, {
                experiment_id: args.id,
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) =>
            table([
              ["CELL", "BLOCK", "ORDER", "VARIANT", "OUTCOME", "RUN"],
              ...r.items.map((t) => [
                String(t.cell_index),
                t.block_id,
                String(t.order_in_block),
                t.variant,
                t.outcome,
                t.run_id ?? "-",
              ]),
            ]),
        ),
    }),
  },
});
