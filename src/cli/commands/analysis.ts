/**
 * `flameox analyze hotspots` and `stacks callers|callees|examples`. Read-only: never take the
 * write lock.
 */
import { defineCommand } from "citty";
import type { EdgeItem, StackExample, StackDirection } from "../../analysis/stacks.ts";
import {
  answerFrameDrill,
  answerHotspots,
  FrameDrillRequest,
  HotspotsRequest,
} from "../../application/requests/profile-analysis-request.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { evidenceLine, more, pageArgs } from "../analysis-text.ts";
import { commonArgs, execute } from "../context.ts";
import { formatNs, safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";
import { shortLocation } from "../short-location.ts";

// The other analyses load when used: each brings its services and request schemas, which
// `analyze hotspots` and the drill-downs have no use for.
const accelerator = () => import("./accelerator.ts");

/** Time metrics in ns are shown as durations; bytes and counts as numbers with their unit. */
const formatValue = (value: number, unit: string) =>
  unit === "ns" ? formatNs(value) : `${value} ${unit}`;
const where = (f: { file: string | null; line: number | null }) =>
  f.file ? shortLocation(safeText(f.file), f.line) : "";

export const analyzeCommand = defineCommand({
  meta: { name: "analyze", description: "Read-only analyses over the pinned corpus commit" },
  subCommands: {
    compare: () => import("./comparison.ts").then((m) => m.compareCommand),
    "record-comparison": () => import("./comparison.ts").then((m) => m.recordComparisonCommand),
    scaling: () => import("./experiment.ts").then((m) => m.scalingCommand),
    record: () => import("./investigations.ts").then((m) => m.analyzeRecordCommand),
    failures: () => import("./failures.ts").then((m) => m.failuresCommand),
    coverage: () => import("./coverage.ts").then((m) => m.coverageCommand),
    accelerator: () => accelerator().then((m) => m.acceleratorCommand),
    operators: () => accelerator().then((m) => m.operatorsCommand),
    hotspots: defineCommand({
      meta: { name: "hotspots", description: "Top functions by self time for a run or artifact" },
      args: {
        ...commonArgs,
        ...pageArgs,
        run_or_artifact: { type: "positional", required: true },
        granularity: {
          type: "string",
          description: "function (default, as pprof -top) | line (one row per stored frame) | file",
        },
        "exclude-pseudo-frames": {
          type: "boolean",
          description:
            "Leave out (idle), (program), (garbage collector) and (root); the result says " +
            "what was left out",
        },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerHotspots(
              s,
              checkRequest(HotspotsRequest, {
                run_or_artifact: args.run_or_artifact,
                limit: numberFlag(args.limit),
                cursor: args.cursor,
                metric: args.metric,
                granularity: args.granularity,
                exclude_pseudo_frames: args["exclude-pseudo-frames"],
              }),
            ),
          (r) =>
            [
              `hotspots (${r.metric ?? "no metric"}, per ${r.granularity}) ` +
                `at ${r.corpus_commit_id}`,
              evidenceLine(r.evidence),
              r.excluded && r.excluded.functions.length > 0
                ? `excluded: ${r.excluded.functions.map(safeText).join(", ")} ` +
                  `(${(100 * r.excluded.self_fraction).toFixed(1)}% self)`
                : "",
              r.items.length > 0
                ? table([
                    ["#", "SELF", "SELF%", "TOTAL", "FRAME", "FUNCTION", "LOCATION"],
                    ...r.items.map((h) => [
                      String(h.rank),
                      formatValue(h.self_value, h.unit),
                      (100 * h.self_fraction).toFixed(1),
                      formatValue(h.inclusive_value, h.unit),
                      h.frame_id,
                      safeText(h.function),
                      where(h),
                    ]),
                  ])
                : "",
              ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
              more(r.next_cursor),
            ]
              .filter(Boolean)
              .join("\n"),
        ),
    }),
  },
});

function stacksCommand(direction: StackDirection) {
  return defineCommand({
    meta: {
      name: direction,
      description:
        direction === "examples"
          ? "Representative stacks through a frame"
          : `The ${direction} of a frame`,
    },
    args: {
      ...commonArgs,
      ...pageArgs,
      run_or_artifact: { type: "positional", required: true },
      frame_id: { type: "positional", required: true },
      granularity: {
        type: "string",
        description:
          "function (default: every line of the frame's function, as hotspots' rows) | line " +
          "(the stored frame alone)",
      },
    },
    run: ({ args }) =>
      execute(
        args,
        (s) =>
          answerFrameDrill(
            s,
            direction,
            checkRequest(FrameDrillRequest, {
              run_or_artifact: args.run_or_artifact,
              frame_id: args.frame_id,
              limit: numberFlag(args.limit),
              cursor: args.cursor,
              metric: args.metric,
              granularity: args.granularity,
            }),
          ),
        (r) =>
          [
            `${direction} of ${safeText(r.frame.function)} ` +
              `(${r.frame.frame_id}), ${r.metric ?? ""} at ${r.corpus_commit_id}`,
            evidenceLine(r.evidence),
            direction === "examples"
              ? (r.items as StackExample[])
                  .map(
                    (st) =>
                      `${formatNs(st.duration_ns)} ${st.sample_count} ` +
                      `samples\n  ${st.frames.map((f) => safeText(f.function)).join(" > ")}`,
                  )
                  .join("\n")
              : table([
                  ["TIME", "COUNT", "FRAME", "FUNCTION", "LOCATION"],
                  ...(r.items as EdgeItem[]).map((e) => [
                    formatNs(e.duration_ns),
                    String(e.sample_count),
                    e.frame_id,
                    safeText(e.function),
                    where(e),
                  ]),
                ]),
            more(r.next_cursor),
          ]
            .filter(Boolean)
            .join("\n"),
      ),
  });
}

export const stacksGroup = defineCommand({
  meta: {
    name: "stacks",
    description: "Drill down from a frame: callers, callees, example stacks",
  },
  subCommands: {
    callers: stacksCommand("callers"),
    callees: stacksCommand("callees"),
    examples: stacksCommand("examples"),
  },
});
