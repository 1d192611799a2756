/** Inputs and results of the investigation-record tools. Inputs are closed and bounded. */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { pageFields } from "./common.ts";

const id = (what: string) => type("0 < string <= 200").describe(what);
const text = (what: string) => type("0 < string <= 4000").describe(what);
const cursor = type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page");
const limit = type("1 <= number.integer <= 1000").describe("a page size from 1 to 1000");
const revision = type("1 <= number.integer <= 999999999");

const EvidenceRefInput = type({
  "+": "reject",
  ref_type: "'run' | 'artifact' | 'generation' | 'run_set' | 'comparison' | 'experiment' | 'analysis' | 'hypothesis' | 'finding' | 'investigation'",
  ref_id: id("the referenced record's id"),
  "relation?": "'supports' | 'contradicts' | 'context' | 'validates'",
});
const evidenceRefs = EvidenceRefInput.array().atMostLength(1000).describe("typed references to existing records");

export const CreateInvestigationInput = type({
  "+": "reject",
  title: text("a short title"),
  "question?": text("the question the investigation answers").or("null"),
  "status?": "'open' | 'closed'",
});
export const ListInvestigationsInput = type({ "+": "reject", "limit?": limit, "cursor?": cursor });
export const InvestigationIdInput = type({ "+": "reject", investigation_id: id("an investigation id (inv_…)") });

export const RecordHypothesisInput = type({
  "+": "reject",
  "investigation_id?": id("the investigation (required for a new hypothesis)"),
  "hypothesis_id?": id("revise this hypothesis (needs expected_revision)"),
  "expected_revision?": revision.describe("the revision you read; a stale one is REVISION_CONFLICT"),
  statement: text("what is hypothesized"),
  "status?": "'proposed' | 'supported' | 'refuted' | 'inconclusive'",
  "evidence_refs?": evidenceRefs,
});
export const GetHypothesisInput = type({ "+": "reject", hypothesis_id: id("a hypothesis id (hyp_…)"), "revision?": revision });

export const RecordFindingInput = type({
  "+": "reject",
  "finding_id?": id("revise this finding (needs expected_revision)"),
  "expected_revision?": revision.describe("the revision you read; a stale one is REVISION_CONFLICT"),
  "investigation_id?": id("an investigation id").or("null"),
  "hypothesis_id?": id("a hypothesis id").or("null"),
  statement: text("what was found"),
  kind: "'hotspot' | 'regression' | 'anomaly' | 'hypothesis' | 'validation'",
  evidence_level: "'observed' | 'derived' | 'inferred'",
  "assessment?": "'unassessed' | 'supported' | 'refuted' | 'inconclusive'",
  "comparison_id?": id("the recorded comparison (cmp_…) a performance finding rests on").or("null"),
  "evidence_refs?": evidenceRefs,
});
export const GetFindingInput = type({ "+": "reject", finding_id: id("a finding id (fnd_…)"), "revision?": revision });
export const ListFindingsInput = type({ "+": "reject", "investigation_id?": id("keep findings of this investigation").or("null"), "limit?": limit, "cursor?": cursor });

export const RecordAnalysisInput = type({
  "+": "reject",
  recipe: "'cpu_hotspots'",
  run_or_artifact: id("a run id (run_…) or artifact id (sha256:…)"),
  "metric?": type.enumerated(...FRAME_METRICS),
  "limit?": limit,
  "investigation_id?": id("an investigation id").or("null"),
});

export const InvestigationResult = type({ investigation_id: "string", title: "string", status: "string", created_at: "string", "+": "ignore" });
export const InvestigationPageResult = type({ ...pageFields, items: "object[]", "+": "ignore" });
export const HypothesisResult = type({ hypothesis_id: "string", revision: "number", investigation_id: "string", status: "string", evidence_refs: "object[]", "+": "ignore" });
export const FindingResult = type({ finding_id: "string", revision: "number", kind: "string", evidence_level: "string", assessment: "string", evidence_refs: "object[]", "+": "ignore" });
export const FindingPageResult = type({ ...pageFields, items: "object[]", "+": "ignore" });
export const AnalysisRecordResult = type({ analysis_id: "string", recipe: "string", corpus_commit_id: "string", parameters_digest: "string", result_digest: "string", evidence_refs: "object[]", "+": "ignore" });
