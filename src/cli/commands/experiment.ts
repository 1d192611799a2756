/**
 * `flameox experiment plan|run|show|trials` and `analyze scaling`. Thin: parse, call
 * StudyService, render.
 */
import { defineCommand } from "citty";
import {
  answerExperiment,
  answerExperimentPlan,
  answerScaling,
  answerTrialsPage,
  ExperimentLookupRequest,
  ExperimentPlanRequest,
  TrialsPageRequest,
} from "../../application/requests/experiment-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { StudyService } from "../../application/study/study-service.ts";
import { commonArgs, execute } from "../context.ts";
import { table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const study = (s: { ws: StudyService["ws"] }) => new StudyService(s.ws);

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
              `${v.variant}: ${v.selection.best_model ?? v.selection.status} (AICc ` +
              `margin ${v.selection.margin?.toFixed(1) ?? "n/a"})\n` +
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
            `experiment ${r.protocol.name}: ${r.trials_planned} trials ` +
            `in ${r.protocol.definition.blocks} blocks, ` +
            `seed ${r.protocol.randomization.seed}\ndesign ` +
            `${r.protocol.definition.experiment_design_id}`,
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
            `experiment ${r.experiment_id}: ${r.status}; ${JSON.stringify(r.outcome?.counts)}` +
            `\nrun sets: ${JSON.stringify(r.outcome?.run_set_ids)}`,
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
            `experiment ${r.experiment_id} ` +
            `(${r.protocol.name}): ${r.status}; ${JSON.stringify(r.outcome?.counts ?? {})}`,
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
