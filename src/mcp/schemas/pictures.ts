/**
 * Result schema of diff_profiles (its input is the profile diff request,
 * application/requests/profile-view-requests.ts).
 */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { EvidenceStatus, Limitation, pageFields } from "./common.ts";

const inputs = {
  subject: { type: "'run' | 'artifact'", id: "string" },
  run_ids: "string[]",
  artifact_ids: "string[]",
  generation_ids: "string[]",
} as const;
const cost = { self: "number", total: "number" } as const;

export const DiffItem = type({
  rank: "number.integer >= 1",
  function: "string",
  file: "string | null",
  language: "string",
  match: "'name_file' | 'name_only' | 'unmatched'",
  base: cost,
  candidate: cost,
  delta_self: "number",
  delta_total: "number",
  delta_self_share: "number",
  delta_total_share: "number",
});

export const ProfileDiffResult = type({
  ...pageFields,
  schema_version: "number.integer",
  recipe: "string",
  recipe_version: "string",
  corpus_commit_id: "string",
  claim_level: "'derived'",
  base: inputs,
  candidate: inputs,
  metric: type.enumerated(...FRAME_METRICS).or("null"),
  unit: "string",
  sort: "'self' | 'total'",
  normalized: "boolean",
  totals: { base: "number", candidate: "number", delta: "number", ratio: "number | null" },
  evidence: EvidenceStatus,
  limitations: Limitation.array(),
  items: DiffItem.array(),
});
