/**
 * Results of summarize_runs (its input is the runs summary request,
 * application/requests/summary-request.ts).
 */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { Limitation } from "./common.ts";

const ArtifactDigest = type({
  artifact_id: "string",
  display_names: "string[]",
  kinds: "string[]",
  producer: "string | null",
  producer_version: "string | null",
  byte_length: "number",
});

const HotspotsDigest = type({
  metric: type.enumerated(...FRAME_METRICS).or("null"),
  unit: "string | null",
  total_self_value: "number",
  frames: "number",
  items: type({
    rank: "number",
    frame_id: "string",
    function: "string",
    self_value: "number",
    inclusive_value: "number",
  }).array(),
  truncated: "boolean",
});

const MeasurementGroups = type({
  total: "number",
  groups_total: "number",
  groups: type({
    name: "string",
    unit: "string",
    aggregation: "string",
    count: "number",
    min: "number",
    max: "number",
    mean: "number",
  }).array(),
  truncated: "boolean",
});

const RunDigest = type({
  run_id: "string",
  run_type: "string",
  created_at: "string",
  statuses: { execution: "string", capture: "string", extraction: "string", validation: "string" },
  artifacts: ArtifactDigest.array(),
  hotspots: HotspotsDigest.or("null"),
  measurements: MeasurementGroups.or("null"),
  limitations: Limitation.array(),
  sources: {
    run: "string",
    artifacts: "string[]",
    hotspots: "string | null",
    measurements: "string | null",
  },
});

const MovedFunction = type({
  rank: "number",
  function: "string",
  file: "string | null",
  match: "string",
  base_self: "number",
  candidate_self: "number",
  delta_self: "number",
  base_total: "number",
  candidate_total: "number",
  delta_total: "number",
});

const ComparisonSummaryResult = type({
  schema_version: "1",
  summary: "'comparison.summary'",
  corpus_commit_id: "string",
  bounds: { functions: "number", measurements: "number", metrics: "number" },
  base: { run_id: "string", artifacts: ArtifactDigest.array() },
  candidate: { run_id: "string", artifacts: ArtifactDigest.array() },
  profiles: type({
    metric: type.enumerated(...FRAME_METRICS).or("null"),
    unit: "string",
    totals: { base: "number", candidate: "number", delta: "number", ratio: "number | null" },
    by_self: MovedFunction.array(),
    by_total: MovedFunction.array(),
    sources: { self: "string", total: "string" },
  }).array(),
  metrics_unmatched: type.enumerated(...FRAME_METRICS).array(),
  measurements: type({
    name: "string",
    scope: "string",
    unit: "string | null",
    polarity: "string",
    baseline_value: "number | null",
    candidate_value: "number | null",
    absolute_change: "number | null",
    relative_change: "number | null",
    effect_size: "number | null",
    confidence_low: "number | null",
    confidence_high: "number | null",
    confidence_level: "number",
    complete_pair_n: "number",
    method: "string",
    decision: "string",
    validity: "string",
    caveats: "string[]",
    source: "string",
  }).array(),
  measurements_not_shown: "number",
  measurements_unmatched: "number",
});

const RunsSummaryResult = type({
  schema_version: "1",
  summary: "'runs.summary'",
  corpus_commit_id: "string",
  bounds: { hotspots: "number", measurement_groups: "number" },
  runs: RunDigest.array(),
});

export const SummaryResult = RunsSummaryResult.or(ComparisonSummaryResult);
