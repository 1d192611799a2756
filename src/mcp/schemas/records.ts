/**
 * Result schemas of the record tools (runs, artifacts, evidence inventory). They mirror
 * the application's result models field for field; `type-checks.ts` makes the compiler
 * prove that every service result fits its schema.
 */
import { type } from "arktype";
import {
  CAPTURE_STATUSES,
  EXECUTION_STATUSES,
  EXTRACTION_STATUSES,
  VALIDATION_STATUSES,
} from "../../domain/records.ts";
import { EvidenceStatus, Limitation, pageFields } from "./common.ts";

const sensitivity = "'normal' | 'internal' | 'sensitive'";

/** A run's four statuses, as a run record and a capture result both report them. */
export const runStatusFields = {
  execution_status: type.enumerated(...EXECUTION_STATUSES),
  capture_status: type.enumerated(...CAPTURE_STATUSES),
  extraction_status: type.enumerated(...EXTRACTION_STATUSES),
  validation_status: type.enumerated(...VALIDATION_STATUSES),
};

export const RunRecord = type({
  run_id: "string",
  run_type: "'import' | 'execution'",
  created_at: "string",
  updated_at: "string",
  revision: "number.integer",
  ...runStatusFields,
  limitations: Limitation.array(),
  error: type({ code: "string", message: "string" }).or("null"),
  generation_ids: "string[]",
  artifact_ids: "string[]",
});

export const RegistrationRecord = type({
  registration_id: "string",
  run_id: "string",
  artifact_id: "string",
  display_name: "string",
  kind: "string",
  media_type: "string",
  role: "string",
  producer: "string | null",
  producer_version: "string | null",
  sensitivity,
  registered_at: "string",
});

export const ArtifactRecord = type({
  artifact_id: "string",
  byte_length: "number.integer >= 0",
  created_at: "string",
  effective_sensitivity: sensitivity,
  kinds: "string[]",
  registration_count: "number.integer >= 0",
});

const document = "Record<string, unknown> | null";

export const RunDetail = RunRecord.and({
  registrations: RegistrationRecord.array(),
  execution: type({
    workload: document,
    execution: document,
    source_identity: document,
    environment_identity: document,
  }).or("null"),
});

export const ArtifactDetail = ArtifactRecord.and({
  registrations: RegistrationRecord.array(),
  registrations_truncated: "boolean",
  generation_ids: "string[]",
  supported_analyses: "string[]",
  resource_uri: "string",
});

export const RunPage = type({
  ...pageFields,
  corpus_commit_id: "string",
  items: RunRecord.array(),
});
export const ArtifactPage = type({
  ...pageFields,
  corpus_commit_id: "string",
  items: ArtifactRecord.array(),
});

export const EvidenceResult = type({
  ref: { type: "'run' | 'artifact' | 'generation'", id: "string" },
  corpus_commit_id: "string",
  evidence: EvidenceStatus,
  generations: type({
    generation_id: "string",
    created_at: "string",
    extractor: { name: "string", version: "string" },
    run_ids: "string[]",
    artifact_ids: "string[]",
    tables: type({
      table: "string",
      rows: "number.integer >= 0",
      bytes: "number.integer >= 0",
      schema_id: "string",
    }).array(),
    limitations: Limitation.array(),
    summary: "Record<string, unknown>",
  }).array(),
  generations_total: "number.integer >= 0",
  generations_truncated: "boolean",
  limitations: Limitation.array(),
  resource_uri: "string",
});
