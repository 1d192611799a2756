/**
 * Results of the investigation-record tools; their inputs are requests in
 * application/requests/investigation-requests.ts.
 */
import { type } from "arktype";
import { pageFields } from "./common.ts";

export const InvestigationResult = type({
  investigation_id: "string",
  title: "string",
  status: "string",
  created_at: "string",
  "+": "ignore",
});
export const InvestigationPageResult = type({ ...pageFields, items: "object[]", "+": "ignore" });
export const HypothesisResult = type({
  hypothesis_id: "string",
  revision: "number",
  investigation_id: "string",
  status: "string",
  evidence_refs: "object[]",
  "+": "ignore",
});
export const FindingResult = type({
  finding_id: "string",
  revision: "number",
  kind: "string",
  evidence_level: "string",
  assessment: "string",
  evidence_refs: "object[]",
  "+": "ignore",
});
export const FindingPageResult = type({ ...pageFields, items: "object[]", "+": "ignore" });
export const AnalysisRecordResult = type({
  analysis_id: "string",
  recipe: "string",
  corpus_commit_id: "string",
  parameters_digest: "string",
  result_digest: "string",
  evidence_refs: "object[]",
  "+": "ignore",
});
