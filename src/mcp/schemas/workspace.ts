/** Result schemas of the workspace tools: status, initialization, validation and import. */
import { type } from "arktype";
import { Limitation } from "./common.ts";

export const WorkspaceIdentity = type({
  schema_version: "number.integer",
  workspace_id: "string",
  created_at: "string",
  project_root: "string",
  flameox_version: "string",
  control_schema_version: "number.integer",
});

const count = "number.integer >= 0";

export const StatusResult = type({
  workspace: WorkspaceIdentity,
  corpus_commit_id: "string",
  counts: {
    runs: count,
    artifacts: count,
    registrations: count,
    generations: count,
    quarantined: count,
  },
  catalog: {
    catalog_head: "string | null",
    corpus_head: "string",
    missing_generations: "string[]",
    extra_generations: "string[]",
    in_sync: "boolean",
  },
  analysis_cache: {
    budget_bytes: count,
    parts: {
      budget_bytes: count,
      bytes: count,
      parts: count,
      loads: count,
      hits: count,
      evictions: count,
    },
    engine: {
      open: "boolean",
      budget_bytes: count,
      bytes: count,
      tables: count,
      loads: count,
      evictions: count,
      starts: count,
    },
  },
  control_plane: { quick_check: "string", last_published_head: "string | null" },
  warnings: "string[]",
});

export const InitResult = type({ created: "boolean", identity: WorkspaceIdentity });

export const ValidationReport = type({
  ok: "boolean",
  level: "'standard' | 'full'",
  corpus_commit_id: "string | null",
  checks: type({
    check: "string",
    status: "'passed' | 'failed' | 'warning'",
    message: "string",
  }).array(),
  counts: { generations: count, evidence_files: count, artifacts: count, rehashed_bytes: count },
});

export const ImportResult = type({
  run_id: "string",
  artifact_id: "string",
  registration_id: "string",
  byte_length: count,
  deduplicated: "boolean",
  extraction: {
    extraction_id: "string",
    status: "'published'",
    generation_id: "string",
    corpus_commit_id: "string",
    publish_attempts: "number.integer >= 1",
    adapter: "string",
    adapter_version: "string",
    artifact_kind: "string",
    producer: "string | null",
    tables: "Record<string, number>",
    limitations: Limitation.array(),
    summary: "Record<string, string | number | boolean | null>",
    worker: {
      wall_ms: "number",
      max_rss_bytes: "number | null",
      memory_cap_bytes: "number | null",
      encode_threads: "number",
      scan_threads: "number",
      "nest_threads?": "number",
      "stages_ms?": "Record<string, number>",
    },
    "publish_ms?": "number",
    "companions?": type({
      filename: "string",
      byte_length: "number",
      adapter: "string",
      context: "Record<string, unknown>",
    }).array(),
  },
  "registration_ms?": "number",
  "companions?": type({
    filename: "string",
    status: "'imported' | 'missing' | 'refused' | 'size_mismatch' | 'failed' | 'over_bound'",
    declared_bytes: "number",
    artifact_id: "string | null",
    registration_id: "string | null",
    rows: "number | null",
    reason: "string | null",
  })
    .array()
    .describe(
      "the sidecar files the artifact declares (NVBench samples): each read only through the " +
        "import fence, as an artifact of the same run",
    ),
  next_tool: type("string").describe(
    "the tool to call next on this evidence (analyze_hotspots for a profile, " +
      "get_trace_window for a trace, …)",
  ),
  next_arguments: type("Record<string, unknown>").describe("arguments for next_tool"),
});
