/**
 * `flameox investigations create|list|show`, `hypotheses record|show`,
 * `findings record|list|show` and `analyze record`. Thin: parse, call InvestigationService, render.
 */
import { defineCommand } from "citty";
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
import { checkRequest } from "../../application/requests/request-schema.ts";
import type { FindingRecord } from "../../application/study/investigation-model.ts";
import { InvestigationService } from "../../application/study/investigation-records.ts";
import { commonArgs, execute } from "../context.ts";
import { structuredInput } from "../json-input.ts";
import { safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const service = (s: { ws: InvestigationService["ws"] }) => new InvestigationService(s.ws);
const inputArg = (what: string) =>
  ({
    ...commonArgs,
    input: { type: "positional", required: true, description: `${what} JSON or @file` },
  }) as const;
const pageArgs = { limit: { type: "string" }, cursor: { type: "string" } } as const;
const more = (cursor: string | null) => (cursor ? `more: --cursor ${cursor}` : "");

const findingLine = (f: FindingRecord) =>
  `finding ${f.finding_id} ` +
  `r${f.revision}: ${f.kind}, ${f.evidence_level}, ${f.assessment}` +
  `${f.comparison_id ? ` (comparison ${f.comparison_id})` : ""}`;

export const investigationsCommand = defineCommand({
  meta: { name: "investigations", description: "Investigations: create, list, show" },
  subCommands: {
    create: defineCommand({
      meta: {
        name: "create",
        description: 'Create an investigation ({"title": …, "question"?: …})',
      },
      args: inputArg("investigation"),
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerInvestigationCreate(
              service(s),
              checkRequest(InvestigationCreateRequest, structuredInput(args.input, "input")),
            ),
          (r) => `investigation ${r.investigation_id}: ${safeText(r.title)}`,
        ),
    }),
    list: defineCommand({
      meta: { name: "list", description: "List investigations" },
      args: { ...commonArgs, ...pageArgs },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerInvestigationsPage(
              service(s),
              checkRequest(InvestigationsPageRequest, {
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) =>
            [
              table([
                ["ID", "STATUS", "CREATED", "TITLE"],
                ...r.items.map((i) => [
                  i.investigation_id,
                  i.status,
                  i.created_at,
                  safeText(i.title),
                ]),
              ]),
              more(r.next_cursor),
            ]
              .filter(Boolean)
              .join("\n"),
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show an investigation with its hypotheses and findings" },
      args: { ...commonArgs, id: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerInvestigation(
              service(s),
              checkRequest(InvestigationLookupRequest, { investigation_id: args.id }),
            ),
          (r) =>
            [
              `investigation ${r.investigation_id} (${r.status}): ${safeText(r.title)}`,
              ...r.hypotheses.map(
                (h) =>
                  `hypothesis ${h.hypothesis_id} r${h.revision} ` +
                  `(${h.status}): ${safeText(h.statement)}`,
              ),
              ...r.findings.map(findingLine),
            ].join("\n"),
        ),
    }),
  },
});

export const hypothesesCommand = defineCommand({
  meta: { name: "hypotheses", description: "Hypotheses: record (new or revision), show" },
  subCommands: {
    record: defineCommand({
      meta: {
        name: "record",
        description: "Record a hypothesis, or revise one (hypothesis_id + expected_revision)",
      },
      args: inputArg("hypothesis"),
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerHypothesisRecord(
              service(s),
              checkRequest(HypothesisRecordRequest, structuredInput(args.input, "input")),
            ),
          (r) => `hypothesis ${r.hypothesis_id} r${r.revision} (${r.status})`,
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show a hypothesis (newest revision unless --revision)" },
      args: {
        ...commonArgs,
        id: { type: "positional", required: true },
        revision: { type: "string" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerHypothesis(
              service(s),
              checkRequest(HypothesisLookupRequest, {
                hypothesis_id: args.id,
                revision: numberFlag(args.revision),
              }),
            ),
          (r) =>
            `hypothesis ${r.hypothesis_id} r${r.revision} (${r.status}): ${safeText(r.statement)}`,
        ),
    }),
  },
});

export const findingsCommand = defineCommand({
  meta: { name: "findings", description: "Findings: record (new or revision), list, show" },
  subCommands: {
    record: defineCommand({
      meta: {
        name: "record",
        description: "Record a finding, or revise one (finding_id + expected_revision)",
      },
      args: inputArg("finding"),
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerFindingRecord(
              service(s),
              checkRequest(FindingRecordRequest, structuredInput(args.input, "input")),
            ),
          findingLine,
        ),
    }),
    list: defineCommand({
      meta: { name: "list", description: "List findings (newest revision of each)" },
      args: { ...commonArgs, ...pageArgs, investigation: { type: "string" } },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerFindingsPage(
              service(s),
              checkRequest(FindingsPageRequest, {
                investigation_id: args.investigation,
                limit: numberFlag(args.limit),
                cursor: args.cursor,
              }),
            ),
          (r) => [...r.items.map(findingLine), more(r.next_cursor)].filter(Boolean).join("\n"),
        ),
    }),
    show: defineCommand({
      meta: { name: "show", description: "Show a finding (newest revision unless --revision)" },
      args: {
        ...commonArgs,
        id: { type: "positional", required: true },
        revision: { type: "string" },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) =>
            answerFinding(
              service(s),
              checkRequest(FindingLookupRequest, {
                finding_id: args.id,
                revision: numberFlag(args.revision),
              }),
            ),
          (r) => `${findingLine(r)}\n${safeText(r.statement)}`,
        ),
    }),
  },
});

export const analyzeRecordCommand = defineCommand({
  meta: {
    name: "record",
    description:
      'Run a recipe ({"recipe": "cpu_hotspots", "run_or_artifact": …}) and persist the analysis',
  },
  args: inputArg("analysis"),
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerAnalysisRecord(
          service(s),
          checkRequest(AnalysisRecordRequest, structuredInput(args.input, "input")),
        ),
      (r) =>
        [
          `analysis ${r.analysis_id} (${r.recipe}@${r.recipe_version}) at ${r.corpus_commit_id}`,
          `parameters ${r.parameters_digest}`,
          `result ${r.result_digest}`,
          `${r.evidence_refs.length} evidence reference(s)`,
        ].join("\n"),
    ),
});
