/**
 * The requests of the evidence recipes over one run or artifact: test failures,
 * execution coverage, the accelerator timeline and torch.profiler operators.
 */
import { type } from "arktype";
import type { WorkspaceService } from "../workspace-service.ts";
import { cursor, pageLimit, runOrArtifact } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

/** Inputs a failures analysis reads at once, to find flaky tests across runs. */
export const MAX_FAILURE_INPUTS = 50;

export const FailuresRequest = defineRequest(
  "failures analysis",
  type({
    "+": "reject",
    run_or_artifact: runOrArtifact
      .or(runOrArtifact.array().atLeastLength(1).atMostLength(MAX_FAILURE_INPUTS))
      .describe(
        `one run or artifact, or up to ${MAX_FAILURE_INPUTS} of them to find flaky tests ` +
          `across runs`,
      ),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type FailuresRequest = typeof FailuresRequest.infer;

export const CoverageRequest = defineRequest(
  "coverage analysis",
  type({
    "+": "reject",
    run_or_artifact: runOrArtifact.describe("the run or artifact whose coverage is read"),
    "base?": runOrArtifact
      .or("null")
      .describe(
        "a base run or artifact: the result then lists, per file, lines newly executed and " +
          "no longer executed against it",
      ),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type CoverageRequest = typeof CoverageRequest.infer;

export const AcceleratorTimelineRequest = defineRequest(
  "accelerator timeline",
  type({
    "+": "reject",
    run_or_artifact: runOrArtifact.describe(
      "the run or artifact whose trace is read (an Nsight Systems export, a torch.profiler trace)",
    ),
    "min_gap_ns?": type("0 <= number.integer <= 1000000000000").describe(
      "shortest idle gap on a stream to report, ns (default 1000000: 1 ms)",
    ),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type AcceleratorTimelineRequest = typeof AcceleratorTimelineRequest.infer;

export const OperatorsRequest = defineRequest(
  "operators analysis",
  type({
    "+": "reject",
    run_or_artifact: runOrArtifact.describe(
      "the run or artifact whose torch.profiler trace is read",
    ),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type OperatorsRequest = typeof OperatorsRequest.infer;

export function answerFailures(service: WorkspaceService, request: FailuresRequest) {
  const refs = Array.isArray(request.run_or_artifact)
    ? request.run_or_artifact
    : [request.run_or_artifact];
  return service.recipes().analyzeFailures(refs, { limit: request.limit, cursor: request.cursor });
}

export function answerCoverage(service: WorkspaceService, request: CoverageRequest) {
  return service.recipes().analyzeCoverage(request.run_or_artifact, {
    base: request.base ?? null,
    limit: request.limit,
    cursor: request.cursor,
  });
}

export function answerAcceleratorTimeline(
  service: WorkspaceService,
  request: AcceleratorTimelineRequest,
) {
  return service.recipes().analyzeAcceleratorTimeline(request.run_or_artifact, {
    minGapNs: request.min_gap_ns,
    limit: request.limit,
    cursor: request.cursor,
  });
}

export function answerOperators(service: WorkspaceService, request: OperatorsRequest) {
  return service
    .recipes()
    .analyzeOperators(request.run_or_artifact, { limit: request.limit, cursor: request.cursor });
}
