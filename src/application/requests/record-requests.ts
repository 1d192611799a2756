/**
 * The requests over the workspace's records: a page of runs or artifacts, one run or
 * artifact by id, a run's captured output, a validation, and the evidence the pinned
 * commit holds about a ref.
 */
import { type } from "arktype";
import { EVIDENCE_REF_TYPES } from "../get-evidence.ts";
import type { WorkspaceService } from "../workspace-service.ts";
import { artifactId, cursor, pageLimit, runId } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

export const RecordPageRequest = defineRequest(
  "listing",
  type({ "+": "reject", "limit?": pageLimit, "cursor?": cursor }),
);
/** `listRuns` and `listArtifacts` take this request as it is. */
export type RecordPageRequest = typeof RecordPageRequest.infer;

export const RunLookupRequest = defineRequest("run lookup", type({ "+": "reject", run_id: runId }));
export type RunLookupRequest = typeof RunLookupRequest.infer;

export const ArtifactLookupRequest = defineRequest(
  "artifact lookup",
  type({ "+": "reject", artifact_id: artifactId }),
);
export type ArtifactLookupRequest = typeof ArtifactLookupRequest.infer;

/** Most bytes of one captured stream printed at once. */
const MAX_LOG_BYTES = 1 << 30;

export const RunLogsRequest = defineRequest(
  "run logs",
  type({
    "+": "reject",
    run_id: runId,
    "stream?": type.enumerated("stdout", "stderr").describe("stdout or stderr (default: both)"),
    "max_bytes?": type(`1 <= number.integer <= ${MAX_LOG_BYTES}`).describe(
      `bytes to print per stream, up to ${MAX_LOG_BYTES} (default 1 MiB)`,
    ),
  }),
);
export type RunLogsRequest = typeof RunLogsRequest.infer;

export const ValidationRequest = defineRequest(
  "validation",
  type({
    "+": "reject",
    "mode?": type
      .enumerated("standard", "full")
      .describe("standard (default) or full (rehashes every artifact and evidence file)"),
  }),
);
export type ValidationRequest = typeof ValidationRequest.infer;

export const EvidenceRequest = defineRequest(
  "evidence",
  type({
    "+": "reject",
    ref_type: type
      .enumerated(...EVIDENCE_REF_TYPES)
      .describe("what ref_id names: run, artifact or generation"),
    ref_id: type("0 < string <= 200").describe(
      "a run id (run_…), artifact id (sha256:…) or generation id (gen_…)",
    ),
  }),
);
export type EvidenceRequest = typeof EvidenceRequest.infer;

export const answerRunLookup = (service: WorkspaceService, request: RunLookupRequest) =>
  service.getRun(request.run_id);
export const answerArtifactLookup = (service: WorkspaceService, request: ArtifactLookupRequest) =>
  service.getArtifact(request.artifact_id);
export const answerRunLogs = (service: WorkspaceService, request: RunLogsRequest) =>
  service.runLogs(request.run_id, { stream: request.stream, maxBytes: request.max_bytes });
export const answerValidation = (service: WorkspaceService, request: ValidationRequest) =>
  service.validate({ full: request.mode === "full" });
export const answerEvidence = (service: WorkspaceService, request: EvidenceRequest) =>
  service.getEvidence(request.ref_type, request.ref_id);
