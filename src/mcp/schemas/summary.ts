/** Input and result of summarize_runs. */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { SUMMARY_LIMITS } from "../../application/summarize-runs.ts";
import { Limitation } from "./common.ts";

const runId = type("0 < string <= 200").describe("a run id (run_…) from list_runs or import_artifact");

export const SummarizeRunsInput = type({
  "+": "reject",
  run_ids: runId.array().atLeastLength(1).atMostLength(SUMMARY_LIMITS.runs).describe(`1 to ${SUMMARY_LIMITS.runs} run ids`),
  "hotspots?": type(`1 <= number.integer <= ${SUMMARY_LIMITS.hotspots.max}`).describe(`hotspots per run (default ${SUMMARY_LIMITS.hotspots.fallback})`),
  "measurement_groups?": type(`1 <= number.integer <= ${SUMMARY_LIMITS.measurementGroups.max}`).describe(`measurement groups per run (default ${SUMMARY_LIMITS.measurementGroups.fallback})`),
});

const ArtifactDigest = type({
  artifact_id: "string", display_names: "string[]", kinds: "string[]", producer: "string | null", producer_version: "string | null", byte_length: "number",
});

const HotspotsDigest = type({
  metric: type.enumerated(...FRAME_METRICS).or("null"),
  unit: "string | null",
  total_self_value: "number",
  frames: "number",
  items: type({ rank: "number", frame_id: "string", function: "string", self_value: "number", inclusive_value: "number" }).array(),
  truncated: "boolean",
});

const MeasurementGroups = type({
  total: "number",
  groups_total: "number",
  groups: type({ name: "string", unit: "string", aggregation: "string", count: "number", min: "number", max: "number", mean: "number" }).array(),
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
  sources: { run: "string", artifacts: "string[]", hotspots: "string | null", measurements: "string | null" },
});

export const SummaryResult = type({
  schema_version: "1",
  summary: "'runs.summary'",
  corpus_commit_id: "string",
  bounds: { hotspots: "number", measurement_groups: "number" },
  runs: RunDigest.array(),
});
