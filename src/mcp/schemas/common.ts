/**
 * Schema building blocks shared by every tool: limitations, evidence status, page
 * fields, the error payload and the one envelope `{schema_version, ok, result, error}`.
 * Each is an arktype type, so the same definition validates values and yields the JSON
 * Schema a client sees.
 */
import { type, type Type } from "arktype";
import { compactSchema } from "./compact-schema.ts";

/** Version of the envelope shape; bumped only when the envelope itself changes. */
export const ENVELOPE_SCHEMA_VERSION = 1;

export const Limitation = type({ code: "string", message: "string", "count?": "number" });

export const EvidenceStatus = type({
  status: "'available' | 'empty' | 'unavailable' | 'partial' | 'unknown'",
  reason: "string",
  "next_tool?": "string",
  "next_arguments?": "Record<string, unknown>",
});

/** Fields every paginated result carries. */
export const pageFields = {
  total: "number.integer >= 0",
  returned: "number.integer >= 0",
  truncated: "boolean",
  next_cursor: "string | null",
} as const;

/** Fields every analysis result carries (see analysis/analysis-result.ts). */
export const analysisFields = {
  ...pageFields,
  schema_version: "number.integer",
  recipe: "string",
  recipe_version: "string",
  corpus_commit_id: "string",
  claim_level: "'observed' | 'derived'",
  inputs: {
    subject: { type: "'run' | 'artifact'", id: "string" },
    run_ids: "string[]",
    artifact_ids: "string[]",
    generation_ids: "string[]",
  },
  evidence: EvidenceStatus,
  limitations: Limitation.array(),
} as const;

/**
 * The error payload as published. `code` is one of the closed list in domain/errors.ts;
 * it is published as a string, not an enum: the forty codes were ~1.2 KB of every tool's
 * outputSchema, forty times over in tools/list, and a client validates only successful
 * results against it.
 */
export const ErrorPayload = type({
  code: "string",
  message: "string",
  retryable: "boolean",
  remediation: "string[]",
  "details?": "Record<string, unknown>",
  "run_id?": "string",
}).describe(
  "set when ok is false: {code, message, retryable, remediation[], details?, run_id?}; code " +
    "is a stable error code such as INVALID_ARGUMENTS; remediation says what to do next",
);

/** The envelope around one tool's result type. */
export function envelopeOf(result: Type): Type {
  const nullable = result.or("null") as Type;
  return type({
    schema_version: "number.integer",
    ok: "boolean",
    result: nullable as never,
    error: ErrorPayload.or("null"),
  }) as unknown as Type;
}

/**
 * JSON Schema of an arktype type as MCP publishes it. The `$schema` marker is dropped:
 * clients compile these with validators (Ajv's default draft) that reject a dialect
 * URI they do not bundle, and the keywords used here mean the same in every draft.
 */
export function jsonSchemaOf(t: Type): Record<string, unknown> {
  // flameox_request names a use case's request in its errors (see request-schema.ts); it is no JSON
  // Schema keyword.
  const {
    $schema: _dialect,
    flameox_request: _request,
    ...schema
  } = t.toJsonSchema() as Record<string, unknown>;
  return compactSchema(schema);
}
