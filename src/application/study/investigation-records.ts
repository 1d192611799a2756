/**
 * Investigation records: investigations, revisioned hypotheses and
 * findings (compare-and-swap on `expected_revision`), and recorded analyses pinned to the
 * exact corpus commit with parameter and result digests and typed evidence references.
 * The model is investigation-model.ts; when a performance finding may be `supported`,
 * finding-assessment.ts; how an analysis is run and recorded, recorded-analysis.ts.
 */
import { randomUUID } from "node:crypto";
import { clampLimit } from "../../analysis/analysis-result.ts";
import { decodeCursor, encodeCursor } from "../../analysis/cursor.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { InvestigationRecords, type EvidenceRef } from "../../storage/investigation-records.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { checkSupportingComparison } from "./finding-assessment.ts";
import { bad, oneOf, refsOf, revisionOf, str } from "./investigation-input.ts";
import {
  ASSESSMENTS,
  EVIDENCE_LEVELS,
  FINDING_KINDS,
  HYPOTHESIS_STATUSES,
  INVESTIGATION_STATUSES,
  type AnalysisRecord,
  type FindingRecord,
  type HypothesisRecord,
  type InvestigationRecord,
  type InvestigationView,
  type Page,
} from "./investigation-model.ts";
import { recordAnalysis } from "./recorded-analysis.ts";

const pageOf = <T>(
  query: string,
  filters: unknown,
  items: T[],
  total: number,
  offset: number,
): Page<T> => {
  const end = offset + items.length;
  return {
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor({ query, filters, commitId: "control" }, end) : null,
  };
};

export class InvestigationService {
  constructor(readonly ws: Workspace) {}

  private get study() {
    return new StudyRecords(this.ws.control.db);
  }
  private get records() {
    return new InvestigationRecords(this.ws.control.db);
  }
  private limit(limit: number | undefined): number {
    return clampLimit(
      limit,
      this.ws.config.analysis.default_row_limit,
      this.ws.config.analysis.max_row_limit,
    );
  }

  createInvestigation(input: Record<string, unknown>): InvestigationRecord {
    const record: InvestigationRecord = {
      investigation_id: `inv_${randomUUID()}`,
      title: str(input, "title", true),
      question: str(input, "question", false),
      status: oneOf(input, "status", INVESTIGATION_STATUSES, "open"),
      created_at: nowIso(),
    };
    this.ws.control.withWriteLock(() =>
      this.study.insert("investigations", {
        investigation_id: record.investigation_id,
        created_at: record.created_at,
        status: record.status,
        record_json: JSON.stringify(record),
      }),
    );
    return record;
  }

  listInvestigations(options: {
    limit?: number;
    cursor?: string | null;
  }): Page<InvestigationRecord> {
    const offset = decodeCursor(options.cursor, {
      query: "investigations",
      filters: {},
      commitId: "control",
    });
    const { items, total } = this.study.list<InvestigationRecord>(
      "investigations",
      "1 = 1",
      [],
      "created_at, investigation_id",
      this.limit(options.limit),
      offset,
    );
    return pageOf("investigations", {}, items, total, offset);
  }

  getInvestigation(id: string): InvestigationView {
    const record = this.study.get<InvestigationRecord>("investigations", id);
    return {
      ...record,
      hypotheses: this.records.listLatest<HypothesisRecord>(
        "hypotheses",
        "investigation_id",
        id,
        1000,
        0,
      ).items,
      findings: this.records.listLatest<FindingRecord>("findings", "investigation_id", id, 1000, 0)
        .items,
    };
  }

  /**
   * A new hypothesis (no hypothesis_id) or a new revision of one (hypothesis_id +
   * expected_revision).
   */
  recordHypothesis(input: Record<string, unknown>): HypothesisRecord {
    const existingId = str(input, "hypothesis_id", false);
    const expected = revisionOf(input);
    const statement = str(input, "statement", true);
    const status = oneOf(input, "status", HYPOTHESIS_STATUSES, "proposed");
    const refs = refsOf(input);
    return this.ws.control.withWriteLock(() => {
      const revision = this.nextRevision("hypotheses", existingId, expected);
      const investigationId = existingId
        ? this.records.get<HypothesisRecord>("hypotheses", existingId).investigation_id
        : str(input, "investigation_id", true);
      if (
        existingId &&
        input.investigation_id !== undefined &&
        input.investigation_id !== investigationId
      )
        throw bad(
          "investigation_id",
          "Expected investigation_id to stay the same across revisions",
        );
      if (!this.study.exists("investigations", investigationId))
        this.study.get("investigations", investigationId);
      for (const r of refs) this.records.checkRef(r);
      const record: HypothesisRecord = {
        hypothesis_id: existingId ?? `hyp_${randomUUID()}`,
        revision,
        investigation_id: investigationId,
        statement,
        status,
        created_at: nowIso(),
        evidence_refs: refs,
      };
      this.records.append("hypotheses", {
        hypothesis_id: record.hypothesis_id,
        revision,
        investigation_id: investigationId,
        created_at: record.created_at,
        record_json: JSON.stringify(record),
      });
      this.records.insertRefs("hypothesis", record.hypothesis_id, revision, refs);
      return record;
    });
  }

  getHypothesis(id: string, revision?: number): HypothesisRecord {
    return this.records.get<HypothesisRecord>("hypotheses", id, revision);
  }

  /**
   * A new finding or a new revision of one; a `supported` performance finding must rest on a sound
   * comparison.
   */
  recordFinding(input: Record<string, unknown>): FindingRecord {
    const existingId = str(input, "finding_id", false);
    const expected = revisionOf(input);
    const kind = oneOf(input, "kind", FINDING_KINDS);
    const evidenceLevel = oneOf(input, "evidence_level", EVIDENCE_LEVELS);
    const assessment = oneOf(input, "assessment", ASSESSMENTS, "unassessed");
    const statement = str(input, "statement", true);
    const investigationId = str(input, "investigation_id", false);
    const hypothesisId = str(input, "hypothesis_id", false);
    const comparisonId = str(input, "comparison_id", false);
    const refs = refsOf(input);
    return this.ws.control.withWriteLock(() => {
      const revision = this.nextRevision("findings", existingId, expected);
      if (investigationId !== null) this.study.get("investigations", investigationId);
      if (hypothesisId !== null) this.records.get("hypotheses", hypothesisId);
      for (const r of refs) this.records.checkRef(r);
      if (comparisonId !== null) this.study.get("comparisons", comparisonId);
      if (assessment === "supported" && (kind === "regression" || comparisonId !== null))
        checkSupportingComparison(this.study, comparisonId);
      const allRefs: EvidenceRef[] =
        comparisonId !== null &&
        !refs.some((r) => r.ref_type === "comparison" && r.ref_id === comparisonId)
          ? [
              ...refs,
              {
                ref_type: "comparison",
                ref_id: comparisonId,
                relation: assessment === "refuted" ? "contradicts" : "supports",
              },
            ]
          : refs;
      const record: FindingRecord = {
        finding_id: existingId ?? `fnd_${randomUUID()}`,
        revision,
        investigation_id: investigationId,
        hypothesis_id: hypothesisId,
        statement,
        kind,
        evidence_level: evidenceLevel,
        assessment,
        comparison_id: comparisonId,
        created_at: nowIso(),
        evidence_refs: allRefs,
      };
      this.records.append("findings", {
        finding_id: record.finding_id,
        revision,
        created_at: record.created_at,
        assessment,
        record_json: JSON.stringify(record),
      });
      this.records.insertRefs("finding", record.finding_id, revision, allRefs);
      return record;
    });
  }

  getFinding(id: string, revision?: number): FindingRecord {
    return this.records.get<FindingRecord>("findings", id, revision);
  }

  listFindings(options: {
    investigationId?: string | null;
    limit?: number;
    cursor?: string | null;
  }): Page<FindingRecord> {
    const filters = { investigation_id: options.investigationId ?? null };
    const offset = decodeCursor(options.cursor, {
      query: "findings",
      filters,
      commitId: "control",
    });
    if (options.investigationId) this.study.get("investigations", options.investigationId);
    const { items, total } = this.records.listLatest<FindingRecord>(
      "findings",
      options.investigationId ? "investigation_id" : null,
      options.investigationId ?? null,
      this.limit(options.limit),
      offset,
    );
    return pageOf("findings", filters, items, total, offset);
  }

  /**
   * Runs a recipe on the pinned commit and persists its parameters, digests and typed references
   * (recorded-analysis.ts).
   */
  recordAnalysis(input: Record<string, unknown>): Promise<AnalysisRecord> {
    return recordAnalysis(this.ws, input, (limit) => this.limit(limit));
  }

  getAnalysis(id: string): AnalysisRecord {
    return this.study.get<AnalysisRecord>("analyses", id);
  }

  private nextRevision(
    table: "hypotheses" | "findings",
    existingId: string | null,
    expected: number | null,
  ): number {
    if (existingId === null) {
      if (expected !== null)
        throw bad("expected_revision", "Expected no expected_revision when creating a new record");
      return 1;
    }
    if (expected === null)
      throw bad("expected_revision", `Expected expected_revision when revising ${existingId}`);
    const current = this.records.latestRevision(table, existingId);
    if (current === 0) this.records.get(table, existingId);
    if (current !== expected) {
      throw new FlameoxError(
        "REVISION_CONFLICT",
        `Cannot revise ${existingId}: expected revision ${expected} but the current revision ` +
          `is ${current}`,
        {
          details: { id: existingId, expected_revision: expected, current_revision: current },
        },
      );
    }
    return current + 1;
  }
}
