/**
 * The requests of the investigation records: investigations, revisioned hypotheses and
 * findings, and recorded analyses (`flameox investigations|hypotheses|findings`,
 * `analyze record`, and the investigation tools). The record service checks the rules
 * that need the workspace (a revision that moved on, a finding's comparison).
 */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { EVIDENCE_REF_TYPES, EVIDENCE_RELATIONS } from "../../storage/investigation-records.ts";
import {
  ANALYSIS_RECIPES,
  ASSESSMENTS,
  EVIDENCE_LEVELS,
  FINDING_KINDS,
  HYPOTHESIS_STATUSES,
  INVESTIGATION_STATUSES,
} from "../study/investigation-model.ts";
import type { InvestigationService } from "../study/investigation-records.ts";
import { cursor, pageLimit } from "./request-fields.ts";
import { defineRequest } from "./request-schema.ts";

const id = (what: string) => type("0 < string <= 200").describe(what);
const text = (what: string) => type("0 < string <= 4000").describe(what);
/** How many hotspots a recorded analysis keeps. */
const limit = type("1 <= number.integer <= 1000").describe("a page size from 1 to 1000");
const revision = type("1 <= number.integer <= 999999999");

const EvidenceRefInput = type({
  "+": "reject",
  ref_type: type.enumerated(...EVIDENCE_REF_TYPES),
  ref_id: id("the referenced record's id"),
  "relation?": type.enumerated(...EVIDENCE_RELATIONS),
});
const evidenceRefs = EvidenceRefInput.array()
  .atMostLength(1000)
  .describe("typed references to existing records");

export const InvestigationCreateRequest = defineRequest(
  "investigation",
  type({
    "+": "reject",
    title: text("a short title"),
    "question?": text("the question the investigation answers").or("null"),
    "status?": type.enumerated(...INVESTIGATION_STATUSES),
  }),
);
export type InvestigationCreateRequest = typeof InvestigationCreateRequest.infer;
export const InvestigationsPageRequest = defineRequest(
  "investigations listing",
  type({ "+": "reject", "limit?": pageLimit, "cursor?": cursor }),
);
export type InvestigationsPageRequest = typeof InvestigationsPageRequest.infer;
export const InvestigationLookupRequest = defineRequest(
  "investigation lookup",
  type({ "+": "reject", investigation_id: id("an investigation id (inv_…)") }),
);
export type InvestigationLookupRequest = typeof InvestigationLookupRequest.infer;

export const HypothesisRecordRequest = defineRequest(
  "hypothesis",
  type({
    "+": "reject",
    "investigation_id?": id("the investigation (required for a new hypothesis)"),
    "hypothesis_id?": id("revise this hypothesis (needs expected_revision)"),
    "expected_revision?": revision.describe(
      "the revision you read; a stale one is REVISION_CONFLICT",
    ),
    statement: text("what is hypothesized"),
    "status?": type.enumerated(...HYPOTHESIS_STATUSES),
    "evidence_refs?": evidenceRefs,
  }),
);
export type HypothesisRecordRequest = typeof HypothesisRecordRequest.infer;
export const HypothesisLookupRequest = defineRequest(
  "hypothesis lookup",
  type({ "+": "reject", hypothesis_id: id("a hypothesis id (hyp_…)"), "revision?": revision }),
);
export type HypothesisLookupRequest = typeof HypothesisLookupRequest.infer;

export const FindingRecordRequest = defineRequest(
  "finding",
  type({
    "+": "reject",
    "finding_id?": id("revise this finding (needs expected_revision)"),
    "expected_revision?": revision.describe(
      "the revision you read; a stale one is REVISION_CONFLICT",
    ),
    "investigation_id?": id("an investigation id").or("null"),
    "hypothesis_id?": id("a hypothesis id").or("null"),
    statement: text("what was found"),
    kind: type.enumerated(...FINDING_KINDS),
    evidence_level: type.enumerated(...EVIDENCE_LEVELS),
    "assessment?": type.enumerated(...ASSESSMENTS),
    "comparison_id?": id("the recorded comparison (cmp_…) a performance finding rests on").or(
      "null",
    ),
    "evidence_refs?": evidenceRefs,
  }),
);
export type FindingRecordRequest = typeof FindingRecordRequest.infer;
export const FindingLookupRequest = defineRequest(
  "finding lookup",
  type({ "+": "reject", finding_id: id("a finding id (fnd_…)"), "revision?": revision }),
);
export type FindingLookupRequest = typeof FindingLookupRequest.infer;
export const FindingsPageRequest = defineRequest(
  "findings listing",
  type({
    "+": "reject",
    "investigation_id?": id("keep findings of this investigation").or("null"),
    "limit?": pageLimit,
    "cursor?": cursor,
  }),
);
export type FindingsPageRequest = typeof FindingsPageRequest.infer;

export const AnalysisRecordRequest = defineRequest(
  "analysis record",
  type({
    "+": "reject",
    recipe: type.enumerated(...ANALYSIS_RECIPES),
    run_or_artifact: id("a run id (run_…) or artifact id (sha256:…)"),
    "metric?": type.enumerated(...FRAME_METRICS),
    "limit?": limit,
    "investigation_id?": id("an investigation id").or("null"),
  }),
);
export type AnalysisRecordRequest = typeof AnalysisRecordRequest.infer;

export const answerInvestigationCreate = (
  records: InvestigationService,
  r: InvestigationCreateRequest,
) => records.createInvestigation(r);
export const answerInvestigationsPage = (
  records: InvestigationService,
  r: InvestigationsPageRequest,
) => records.listInvestigations(r);
export const answerInvestigation = (records: InvestigationService, r: InvestigationLookupRequest) =>
  records.getInvestigation(r.investigation_id);
export const answerHypothesisRecord = (records: InvestigationService, r: HypothesisRecordRequest) =>
  records.recordHypothesis(r);
export const answerHypothesis = (records: InvestigationService, r: HypothesisLookupRequest) =>
  records.getHypothesis(r.hypothesis_id, r.revision);
export const answerFindingRecord = (records: InvestigationService, r: FindingRecordRequest) =>
  records.recordFinding(r);
export const answerFinding = (records: InvestigationService, r: FindingLookupRequest) =>
  records.getFinding(r.finding_id, r.revision);
export const answerFindingsPage = (records: InvestigationService, r: FindingsPageRequest) =>
  records.listFindings({ investigationId: r.investigation_id, limit: r.limit, cursor: r.cursor });
export const answerAnalysisRecord = (records: InvestigationService, r: AnalysisRecordRequest) =>
  records.recordAnalysis(r);
