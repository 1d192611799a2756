/**
 * list_runs, get_run, list_artifacts, get_artifact, get_evidence, summarize_runs: metadata and
 * digests, never bytes or storage paths.
 */
import {
  answerArtifactLookup,
  answerEvidence,
  answerRunLookup,
  ArtifactLookupRequest,
  EvidenceRequest,
  RecordPageRequest,
  RunLookupRequest,
} from "../../application/requests/record-requests.ts";
import {
  answerRunsSummary,
  RunsSummaryRequest,
} from "../../application/requests/summary-request.ts";
import {
  ArtifactDetail,
  ArtifactPage,
  EvidenceResult,
  RunDetail,
  RunPage,
} from "../schemas/records.ts";
import { SummaryResult } from "../schemas/summary.ts";
import { listLimit, toolPage } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const recordPage = toolPage(RecordPageRequest, listLimit);

const more = (r: { returned: number; total: number; next_cursor: string | null }) =>
  `${r.returned} of ${r.total}${r.next_cursor ? "; more with next_cursor" : ""}`;

export const listRuns = defineTool({
  name: "list_runs",
  title: "List runs",
  description:
    "Runs (imports and captures), newest first, with their " +
    "execution/capture/extraction/validation statuses. Paginated: limit (≤200) and cursor.",
  annotations: READ_ONLY,
  input: recordPage,
  result: RunPage,
  pageable: true,
  run: async (request, { session }) => (await session.open()).listRuns(request),
  summarize: (r) =>
    [
      `runs: ${more(r)}`,
      ...r.items
        .slice(0, 3)
        .map((run) => `${run.run_id} ${run.capture_status}/${run.extraction_status}`),
    ].join("\n"),
});

export const getRun = defineTool({
  name: "get_run",
  title: "Get run",
  description:
    "One run: statuses, limitations, error, generations, artifacts and their registrations. " +
    "No host paths.",
  annotations: READ_ONLY,
  input: RunLookupRequest,
  result: RunDetail,
  run: async (request, { session }) => answerRunLookup(await session.open(), request),
  summarize: (r) =>
    `run ${r.run_id}: capture ${r.capture_status}, ` +
    `extraction ${r.extraction_status}${r.error ? `, error ${r.error.code}` : ""}; ` +
    `artifacts ${r.artifact_ids.join(", ") || "none"}`,
});

export const listArtifacts = defineTool({
  name: "list_artifacts",
  title: "List artifacts",
  description:
    "Stored artifacts, newest first: id (sha256), size, kinds, effective sensitivity. " +
    "Paginated: limit (≤200) and cursor.",
  annotations: READ_ONLY,
  input: recordPage,
  result: ArtifactPage,
  pageable: true,
  run: async (request, { session }) => (await session.open()).listArtifacts(request),
  summarize: (r) =>
    [
      `artifacts: ${more(r)}`,
      ...r.items
        .slice(0, 3)
        .map((a) => `${a.artifact_id} ${a.kinds.join(",")} ${a.byte_length} bytes`),
    ].join("\n"),
});

export const getArtifact = defineTool({
  name: "get_artifact",
  title: "Get artifact",
  description:
    "One artifact's metadata: identity, size, sensitivity, registrations, generations and " +
    "the analyses it supports. Never its bytes.",
  annotations: READ_ONLY,
  input: ArtifactLookupRequest,
  result: ArtifactDetail,
  run: async (request, { session }) => answerArtifactLookup(await session.open(), request),
  summarize: (r) =>
    `artifact ${r.artifact_id}: ${r.byte_length} ` +
    `bytes, ${r.kinds.join(",") || "unknown kind"}; ` +
    `analyses: ${r.supported_analyses.join(", ") || "none"}`,
});

export const getEvidence = defineTool({
  name: "get_evidence",
  title: "Get evidence",
  description:
    "What the pinned corpus commit holds about a run, an artifact or a generation: " +
    "generations, tables and row counts, extractor, " +
    "limitations, and an evidence status explaining any absence.",
  annotations: READ_ONLY,
  input: EvidenceRequest,
  result: EvidenceResult,
  run: async (request, { session }) => answerEvidence(await session.open(), request),
  summarize: (r) =>
    `evidence for ${r.ref.type} ${r.ref.id}: ${r.evidence.status} ` +
    `(${r.evidence.reason}); ${r.generations_total} ` +
    `generation(s)${r.generations[0] ? `, first ${r.generations[0].generation_id}` : ""}`,
});

export const summarizeRuns = defineTool({
  name: "summarize_runs",
  title: "Summarize runs",
  description:
    "A bounded digest of 1 to 10 runs at one corpus commit: statuses, artifacts with ids, " +
    "the top hotspots with frame ids, measurements " +
    "grouped by name/unit/aggregation (count, min, max, mean) and limitations. Each run's " +
    "`sources` names the CLI command whose --json " +
    "gives that section's figures in full (get_run, get_artifact, analyze_hotspots and " +
    "query_measurements give the same figures). " +
    "With compare: true and two run ids (base, candidate): per frame metric of both, the " +
    "functions whose self and total moved most " +
    "(diff_profiles' first rows), and each sampled measurement of both runs compared with " +
    "its interval, effect size and decision; artifact ids of both sides.",
  annotations: READ_ONLY,
  input: RunsSummaryRequest,
  result: SummaryResult,
  run: async (request, { session }) => answerRunsSummary(await session.open(), request),
  summarize: (r) =>
    r.summary === "comparison.summary"
      ? `comparison of ${r.base.run_id} → ${r.candidate.run_id} ` +
        `at ${r.corpus_commit_id}: ${r.profiles.length} metric(s) diffed` +
        (r.profiles[0]?.by_self[0] ? `, most moved ${r.profiles[0].by_self[0].function}` : "") +
        `; ${r.measurements.length} measurement(s) compared`
      : [
          `summary of ${r.runs.length} run(s) at ${r.corpus_commit_id}`,
          ...r.runs.map(
            (run) =>
              `${run.run_id}: ${run.artifacts.length} artifact(s); ` +
              (run.hotspots
                ? `top ${run.hotspots.items[0]?.function ?? "none"} (${run.hotspots.metric})`
                : "no hotspots") +
              `; ` +
              (run.measurements ? `${run.measurements.total} measurements` : "no measurements") +
              `; ${run.limitations.length} limitation(s)`,
          ),
        ].join("\n"),
});
