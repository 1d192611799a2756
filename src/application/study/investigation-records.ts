/**
 * Investigation records: investigations, revisioned hypotheses and
 * findings (compare-and-swap on `expected_revision`), and recorded analyses pinned to the
 * exact corpus commit with parameter and result digests and typed evidence references.
 *
 * A performance finding (kind `regression`, or any finding naming a comparison) may be
 * assessed `supported` only when its comparison is `valid`, declares its estimand and a
 * practical threshold, and was validated by a passing cross-treatment oracle; otherwise
 * it is refused with COMPARISON_INVALID.
 */
import { randomUUID } from "node:crypto";
import {
  analyzeHotspots,
  HOTSPOTS_RECIPE,
  HOTSPOTS_VERSION,
  type HotspotsResult,
} from "../../analysis/hotspots.ts";
import { clampLimit } from "../../analysis/analysis-result.ts";
import { decodeCursor, encodeCursor } from "../../analysis/cursor.ts";
import { resolveSubject } from "../../analysis/subject.ts";
import { digestOf } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { FRAME_METRICS, type FrameMetric } from "../../domain/evidence-schema.ts";
import { nowIso } from "../../storage/control-plane.ts";
import {
  EVIDENCE_REF_TYPES,
  EVIDENCE_RELATIONS,
  InvestigationRecords,
  type EvidenceRef,
} from "../../storage/investigation-records.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { RecordedComparison } from "./comparisons.ts";

export const FINDING_KINDS = [
  "hotspot",
  "regression",
  "anomaly",
  "hypothesis",
  "validation",
] as const;
export const EVIDENCE_LEVELS = ["observed", "derived", "inferred"] as const;
export const ASSESSMENTS = ["unassessed", "supported", "refuted", "inconclusive"] as const;
export const INVESTIGATION_STATUSES = ["open", "closed"] as const;
export const HYPOTHESIS_STATUSES = ["proposed", "supported", "refuted", "inconclusive"] as const;
export const ANALYSIS_RECIPES = [HOTSPOTS_RECIPE] as const;

export interface InvestigationRecord {
  investigation_id: string;
  title: string;
  question: string | null;
  status: (typeof INVESTIGATION_STATUSES)[number];
  created_at: string;
}
export interface InvestigationView extends InvestigationRecord {
  hypotheses: HypothesisRecord[];
  findings: FindingRecord[];
}
export interface HypothesisRecord {
  hypothesis_id: string;
  revision: number;
  investigation_id: string;
  statement: string;
  status: (typeof HYPOTHESIS_STATUSES)[number];
  created_at: string;
  evidence_refs: EvidenceRef[];
}
export interface FindingRecord {
  finding_id: string;
  revision: number;
  investigation_id: string | null;
  hypothesis_id: string | null;
  statement: string;
  kind: (typeof FINDING_KINDS)[number];
  evidence_level: (typeof EVIDENCE_LEVELS)[number];
  assessment: (typeof ASSESSMENTS)[number];
  comparison_id: string | null;
  created_at: string;
  evidence_refs: EvidenceRef[];
}
export interface AnalysisRecord {
  analysis_id: string;
  recipe: string;
  recipe_version: string;
  corpus_commit_id: string;
  investigation_id: string | null;
  parameters: Record<string, unknown>;
  parameters_digest: string;
  result_digest: string;
  created_at: string;
  evidence_refs: EvidenceRef[];
  result: HotspotsResult;
}
export interface Page<T> {
  items: T[];
  total: number;
  returned: number;
  truncated: boolean;
  next_cursor: string | null;
}

const bad = (field: string, message: string) =>
  new FlameoxError("INVALID_ARGUMENTS", message, { details: { field } });
function str(input: Record<string, unknown>, field: string, required: true): string;
function str(input: Record<string, unknown>, field: string, required: false): string | null;
function str(input: Record<string, unknown>, field: string, required: boolean): string | null {
  const v = input[field];
  if (v === undefined || v === null) {
    if (required) throw bad(field, `Expected ${field} but it is missing`);
    return null;
  }
  if (typeof v !== "string" || v.length === 0 || v.length > 4000)
    throw bad(field, `Expected ${field} to be a non-empty string of at most 4000 characters`);
  return v;
}
function oneOf<T extends string>(
  input: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const v = input[field] ?? fallback;
  if (typeof v !== "string" || !(allowed as readonly string[]).includes(v))
    throw bad(
      field,
      `Expected ${field} to be one of ${allowed.join(", ")} but found ${JSON.stringify(v)}`,
    );
  return v as T;
}
function revisionOf(input: Record<string, unknown>): number | null {
  const v = input.expected_revision;
  if (v === undefined || v === null) return null;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1)
    throw bad(
      "expected_revision",
      `Expected expected_revision to be a positive integer but found ${JSON.stringify(v)}`,
    );
  return v;
}
function refsOf(input: Record<string, unknown>): EvidenceRef[] {
  const v = input.evidence_refs ?? [];
  if (!Array.isArray(v) || v.length > 1000)
    throw bad("evidence_refs", "Expected evidence_refs to be an array of at most 1000 references");
  return v.map((r) => {
    if (r === null || typeof r !== "object")
      throw bad("evidence_refs", "Expected each evidence reference to be an object");
    const o = r as Record<string, unknown>;
    return {
      ref_type: oneOf(o, "ref_type", EVIDENCE_REF_TYPES),
      ref_id: str(o, "ref_id", true),
      relation: oneOf(o, "relation", EVIDENCE_RELATIONS, "supports"),
    };
  });
}
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
        this.checkSupportingComparison(comparisonId);
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
   * Runs a recipe on the pinned commit and persists its parameters, digests and typed references.
   */
  async recordAnalysis(input: Record<string, unknown>): Promise<AnalysisRecord> {
    const recipe = oneOf(input, "recipe", ANALYSIS_RECIPES);
    const subjectRef = str(input, "run_or_artifact", true);
    const investigationId = str(input, "investigation_id", false);
    const metric =
      input.metric === undefined || input.metric === null
        ? null
        : oneOf(input, "metric", FRAME_METRICS as readonly FrameMetric[]);
    if (
      input.limit !== undefined &&
      (typeof input.limit !== "number" || !Number.isInteger(input.limit) || input.limit < 1)
    )
      throw bad("limit", "Expected limit to be a positive integer");
    if (investigationId !== null) this.study.get("investigations", investigationId);
    const limit = this.limit(input.limit as number | undefined);
    const snapshot = SnapshotHandle.pin(this.ws.paths);
    const subject = resolveSubject(this.ws, snapshot, subjectRef);
    const result = await analyzeHotspots(snapshot, subject, { limit, metric: metric ?? undefined });
    const parameters = {
      recipe,
      recipe_version: HOTSPOTS_VERSION,
      subject: { type: subject.type, id: subject.id },
      metric,
      limit,
    };
    const refs: EvidenceRef[] = [
      ...result.inputs.run_ids.map(
        (id): EvidenceRef => ({ ref_type: "run", ref_id: id, relation: "context" }),
      ),
      ...result.inputs.artifact_ids.map(
        (id): EvidenceRef => ({ ref_type: "artifact", ref_id: id, relation: "context" }),
      ),
      ...result.inputs.generation_ids.map(
        (id): EvidenceRef => ({ ref_type: "generation", ref_id: id, relation: "context" }),
      ),
    ];
    const record: AnalysisRecord = {
      analysis_id: `ana_${randomUUID()}`,
      recipe,
      recipe_version: HOTSPOTS_VERSION,
      corpus_commit_id: result.corpus_commit_id,
      investigation_id: investigationId,
      parameters,
      parameters_digest: digestOf(parameters),
      result_digest: digestOf(result),
      created_at: nowIso(),
      evidence_refs: refs,
      result,
    };
    this.ws.control.withWriteLock(() => {
      this.study.insert("analyses", {
        analysis_id: record.analysis_id,
        recipe,
        corpus_commit_id: record.corpus_commit_id,
        parameters_digest: record.parameters_digest,
        result_digest: record.result_digest,
        created_at: record.created_at,
        record_json: JSON.stringify(record),
      });
      this.records.insertRefs("analysis", record.analysis_id, 0, refs);
    });
    return record;
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
        `Cannot revise ${existingId}: expected revision ${expected} but the current revision is ${current}`,
        {
          details: { id: existingId, expected_revision: expected, current_revision: current },
        },
      );
    }
    return current + 1;
  }

  private checkSupportingComparison(comparisonId: string | null): void {
    const refuse = (reason: string, message: string) =>
      new FlameoxError(
        "COMPARISON_INVALID",
        `Cannot assess a performance finding as supported: ${message}`,
        { details: { field: "assessment", reason, comparison_id: comparisonId } },
      );
    if (comparisonId === null)
      throw refuse("comparison_missing", "it names no comparison (comparison_id)");
    const c = this.study.get<RecordedComparison>("comparisons", comparisonId);
    if (c.validity !== "valid")
      throw refuse("comparison_not_valid", `comparison ${comparisonId} has validity ${c.validity}`);
    if (!c.estimand)
      throw refuse("estimand_missing", `comparison ${comparisonId} declares no estimand`);
    if (!(typeof c.practical_threshold === "number" && c.practical_threshold > 0))
      throw refuse(
        "threshold_missing",
        `comparison ${comparisonId} declares no practical threshold`,
      );
    const oracleTrouble = c.mismatches.find((m) => m.code.startsWith("cross_treatment_validation"));
    if (!c.request?.experiment_id || oracleTrouble)
      throw refuse(
        "cross_treatment_oracle_missing",
        `comparison ${comparisonId} has no passing cross-treatment oracle${oracleTrouble ? ` (${oracleTrouble.code})` : " (no experiment)"}`,
      );
  }
}
