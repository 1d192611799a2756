/**
 * create/list/get investigation, record/get hypothesis, record/get/list finding, record_analysis.
 */
import {
  AnalysisRecordRequest,
  answerAnalysisRecord,
  answerFinding,
  answerFindingRecord,
  answerFindingsPage,
  answerHypothesis,
  answerHypothesisRecord,
  answerInvestigation,
  answerInvestigationCreate,
  answerInvestigationsPage,
  FindingLookupRequest,
  FindingRecordRequest,
  FindingsPageRequest,
  HypothesisLookupRequest,
  HypothesisRecordRequest,
  InvestigationCreateRequest,
  InvestigationLookupRequest,
  InvestigationsPageRequest,
} from "../../application/requests/investigation-requests.ts";
import { InvestigationService } from "../../application/study/investigation-records.ts";
import {
  AnalysisRecordResult,
  FindingPageResult,
  FindingResult,
  HypothesisResult,
  InvestigationPageResult,
  InvestigationResult,
} from "../schemas/investigations.ts";
import { longLimit, toolPage } from "../schemas/tool-pages.ts";
import { ADDITIVE, defineTool, READ_ONLY } from "../tool.ts";

const service = async (session: { open(): Promise<{ ws: InvestigationService["ws"] }> }) =>
  new InvestigationService((await session.open()).ws);

export const createInvestigation = defineTool({
  name: "create_investigation",
  title: "Create investigation",
  description:
    "Creates an investigation (title, optional question) that hypotheses, findings and " +
    "analyses can belong to. Next: record_hypothesis.",
  annotations: ADDITIVE,
  input: InvestigationCreateRequest,
  result: InvestigationResult,
  run: async (request, { session }) => answerInvestigationCreate(await service(session), request),
  summarize: (r) => `investigation ${r.investigation_id}: ${r.status}`,
});

export const listInvestigations = defineTool({
  name: "list_investigations",
  title: "List investigations",
  description: "Every investigation, oldest first. Paginated.",
  annotations: READ_ONLY,
  input: toolPage(InvestigationsPageRequest, longLimit),
  result: InvestigationPageResult,
  pageable: true,
  run: async (request, { session }) => answerInvestigationsPage(await service(session), request),
  summarize: (r) => `${r.returned} of ${r.total} investigations`,
});

export const getInvestigation = defineTool({
  name: "get_investigation",
  title: "Get investigation",
  description: "An investigation with the newest revision of each of its hypotheses and findings.",
  annotations: READ_ONLY,
  input: InvestigationLookupRequest,
  result: InvestigationResult,
  run: async (request, { session }) => answerInvestigation(await service(session), request),
  summarize: (r) => `investigation ${r.investigation_id}: ${r.status}`,
});

export const recordHypothesis = defineTool({
  name: "record_hypothesis",
  title: "Record hypothesis",
  description:
    "Records a new hypothesis of an investigation (revision 1), or a new revision of one: " +
    "pass hypothesis_id and the expected_revision you read; a stale one is " +
    "REVISION_CONFLICT. Evidence references must name existing records.",
  annotations: ADDITIVE,
  input: HypothesisRecordRequest,
  result: HypothesisResult,
  run: async (request, { session }) => answerHypothesisRecord(await service(session), request),
  summarize: (r) => `hypothesis ${r.hypothesis_id} r${r.revision}: ${r.status}`,
});

export const getHypothesis = defineTool({
  name: "get_hypothesis",
  title: "Get hypothesis",
  description: "A hypothesis at its newest revision, or at the revision asked for.",
  annotations: READ_ONLY,
  input: HypothesisLookupRequest,
  result: HypothesisResult,
  run: async (request, { session }) => answerHypothesis(await service(session), request),
  summarize: (r) => `hypothesis ${r.hypothesis_id} r${r.revision}: ${r.status}`,
});

export const recordFinding = defineTool({
  name: "record_finding",
  title: "Record finding",
  description:
    "Records a finding (kind, evidence_level, assessment) or a new revision of one " +
    "(finding_id + expected_revision; stale is REVISION_CONFLICT). " +
    "A performance finding (kind regression, or one naming a comparison) may be supported " +
    "only with a recorded comparison that is valid, declares its estimand and practical " +
    "threshold, and passed a cross-treatment oracle; otherwise COMPARISON_INVALID.",
  annotations: ADDITIVE,
  input: FindingRecordRequest,
  result: FindingResult,
  run: async (request, { session }) => answerFindingRecord(await service(session), request),
  summarize: (r) => `finding ${r.finding_id} r${r.revision}: ${r.kind}, ${r.assessment}`,
});

export const getFinding = defineTool({
  name: "get_finding",
  title: "Get finding",
  description:
    "A finding at its newest revision, or at the revision asked for, with its typed evidence " +
    "references.",
  annotations: READ_ONLY,
  input: FindingLookupRequest,
  result: FindingResult,
  run: async (request, { session }) => answerFinding(await service(session), request),
  summarize: (r) => `finding ${r.finding_id} r${r.revision}: ${r.kind}, ${r.assessment}`,
});

export const listFindings = defineTool({
  name: "list_findings",
  title: "List findings",
  description:
    "The newest revision of every finding, or of an investigation's findings, oldest first. " +
    "Paginated.",
  annotations: READ_ONLY,
  input: toolPage(FindingsPageRequest, longLimit),
  result: FindingPageResult,
  pageable: true,
  run: async (request, { session }) => answerFindingsPage(await service(session), request),
  summarize: (r) => `${r.returned} of ${r.total} findings`,
});

export const recordAnalysis = defineTool({
  name: "record_analysis",
  title: "Record analysis",
  description:
    "Runs a recipe (cpu_hotspots) on the pinned corpus commit and persists it: the exact " +
    "corpus_commit_id, parameters_digest, result_digest, and typed references to the runs, " +
    "artifacts and generations it read.",
  annotations: ADDITIVE,
  input: AnalysisRecordRequest,
  result: AnalysisRecordResult,
  run: async (request, { session }) => answerAnalysisRecord(await service(session), request),
  summarize: (r) => `analysis ${r.analysis_id} (${r.recipe}) at ${r.corpus_commit_id}`,
});

export const INVESTIGATION_TOOLS = [
  createInvestigation,
  listInvestigations,
  getInvestigation,
  recordHypothesis,
  getHypothesis,
  recordFinding,
  getFinding,
  listFindings,
  recordAnalysis,
];
