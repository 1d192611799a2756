/**
 * The request for a bounded digest of runs (`flameox summarize`, summarize_runs): each
 * run's digest, or with `compare` what moved from a base run to a candidate.
 */
import { type } from "arktype";
import { FlameoxError } from "../../domain/errors.ts";
import { COMPARISON_SUMMARY_LIMITS } from "../summarize-comparison.ts";
import { SUMMARY_LIMITS } from "../summarize-runs.ts";
import type { WorkspaceService } from "../workspace-service.ts";
import { runId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const RunsSummaryRequest = defineRequest(
  "runs summary",
  type({
    "+": "reject",
    run_ids: runId
      .array()
      .atLeastLength(1)
      .atMostLength(SUMMARY_LIMITS.runs)
      .describe(`1 to ${SUMMARY_LIMITS.runs} run ids`),
    "hotspots?": type(`1 <= number.integer <= ${SUMMARY_LIMITS.hotspots.max}`).describe(
      `1 to ${SUMMARY_LIMITS.hotspots.max} hotspots per run ` +
        `(default ${SUMMARY_LIMITS.hotspots.fallback})`,
    ),
    "measurement_groups?": type(
      `1 <= number.integer <= ${SUMMARY_LIMITS.measurementGroups.max}`,
    ).describe(
      `1 to ${SUMMARY_LIMITS.measurementGroups.max} measurement groups per run ` +
        `(default ${SUMMARY_LIMITS.measurementGroups.fallback})`,
    ),
    "compare?": type("boolean").describe(
      "true: digest the comparison of exactly two runs, base then candidate, instead of each run",
    ),
    "functions?": type(
      `1 <= number.integer <= ${COMPARISON_SUMMARY_LIMITS.functions.max}`,
    ).describe(
      `with compare: functions per metric and ranking ` +
        `(default ${COMPARISON_SUMMARY_LIMITS.functions.fallback})`,
    ),
    "measurements?": type(
      `1 <= number.integer <= ${COMPARISON_SUMMARY_LIMITS.measurements.max}`,
    ).describe(
      `with compare: measurements compared ` +
        `(default ${COMPARISON_SUMMARY_LIMITS.measurements.fallback})`,
    ),
  }),
);
export type RunsSummaryRequest = typeof RunsSummaryRequest.infer;

export function answerRunsSummary(service: WorkspaceService, request: RunsSummaryRequest) {
  const recipes = service.recipes();
  if (!request.compare)
    return recipes.summarizeRuns(request.run_ids, {
      hotspots: request.hotspots,
      measurementGroups: request.measurement_groups,
    });
  const [base, candidate, ...more] = request.run_ids;
  if (candidate === undefined || more.length > 0) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Invalid runs summary request: with compare, run_ids must be two run ids, base then ` +
        `candidate (was ${request.run_ids.length})`,
      {
        details: { field: "run_ids", fields: ["run_ids"] },
      },
    );
  }
  return recipes.summarizeComparison(base!, candidate, {
    functions: request.functions,
    measurements: request.measurements,
  });
}
