/**
 * Control-plane storage of the revisioned study records (hypotheses and findings) and of
 * typed evidence references. A revision is appended, never rewritten; the newest
 * revision of an id is its current state. Callers hold the write lock around appends so
 * the compare-and-swap on `expected_revision` is atomic.
 */
import type { Database } from "bun:sqlite";
import { FlameoxError } from "../domain/errors.ts";

export type RevisionedTable = "hypotheses" | "findings";
const KEY: Record<RevisionedTable, string> = {
  hypotheses: "hypothesis_id",
  findings: "finding_id",
};

export const EVIDENCE_REF_TYPES = [
  "run",
  "artifact",
  "generation",
  "run_set",
  "comparison",
  "experiment",
  "analysis",
  "hypothesis",
  "finding",
  "investigation",
] as const;
export type EvidenceRefType = (typeof EVIDENCE_REF_TYPES)[number];
export const EVIDENCE_RELATIONS = ["supports", "contradicts", "context", "validates"] as const;
export type EvidenceRelation = (typeof EVIDENCE_RELATIONS)[number];
export interface EvidenceRef {
  ref_type: EvidenceRefType;
  ref_id: string;
  relation: EvidenceRelation;
}

/** Where each reference type lives: table and key column (fixed SQL, never from callers). */
const REF_TARGET: Record<EvidenceRefType, [string, string]> = {
  run: ["runs", "run_id"],
  artifact: ["artifacts", "artifact_id"],
  generation: ["catalog_generations", "generation_id"],
  run_set: ["run_sets", "run_set_id"],
  comparison: ["comparisons", "comparison_id"],
  experiment: ["experiments", "experiment_id"],
  analysis: ["analyses", "analysis_id"],
  hypothesis: ["hypotheses", "hypothesis_id"],
  finding: ["findings", "finding_id"],
  investigation: ["investigations", "investigation_id"],
};

export class InvestigationRecords {
  constructor(readonly db: Database) {}

  /** The newest revision number of an id, or 0 when it has none. */
  latestRevision(table: RevisionedTable, id: string): number {
    const row = this.db
      .query(`SELECT max(revision) AS r FROM ${table} WHERE ${KEY[table]} = ?`)
      .get(id) as { r: number | null };
    return row.r ?? 0;
  }

  append(table: RevisionedTable, columns: Record<string, string | number | null>): void {
    const names = Object.keys(columns);
    this.db
      .query(
        `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
      )
      .run(...names.map((n) => columns[n]!));
  }

  /** One revision (the newest when `revision` is absent). */
  get<T>(table: RevisionedTable, id: string, revision?: number): T {
    const row = (
      revision === undefined
        ? this.db
            .query(
              `SELECT record_json AS body FROM ${table} WHERE ${KEY[table]} = ? ORDER BY ` +
                `revision DESC LIMIT 1`,
            )
            .get(id)
        : this.db
            .query(
              `SELECT record_json AS body FROM ${table} WHERE ${KEY[table]} = ? AND revision = ?`,
            )
            .get(id, revision)
    ) as { body: string } | null;
    if (!row) {
      const kind = table === "hypotheses" ? "hypothesis" : "finding";
      throw new FlameoxError(
        "RECORD_NOT_FOUND",
        `Cannot find ${kind} ${id}${revision === undefined ? "" : ` revision ${revision}`}`,
        { details: { table, id, revision: revision ?? null } },
      );
    }
    return JSON.parse(row.body) as T;
  }

  /**
   * Newest revisions whose record_json field `field` equals `value` (or every id when `field` is
   * null), in order of first revision.
   */
  listLatest<T>(
    table: RevisionedTable,
    field: string | null,
    value: string | null,
    limit: number,
    offset: number,
  ): { items: T[]; total: number } {
    const key = KEY[table];
    const latest =
      `revision = (SELECT max(r.revision) FROM ${table} r ` + `WHERE r.${key} = ${table}.${key})`;
    const where =
      field === null ? latest : `${latest} AND json_extract(record_json, '$.' || ?) = ?`;
    const params = field === null ? [] : [field, value!];
    const total = (
      this.db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...params) as {
        n: number;
      }
    ).n;
    const rows = this.db
      .query(
        `SELECT record_json AS body FROM ${table} WHERE ${where} ORDER BY (SELECT ` +
          `min(f.rowid) FROM ${table} f WHERE f.${key} = ${table}.${key}) LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, offset) as { body: string }[];
    return { items: rows.map((r) => JSON.parse(r.body) as T), total };
  }

  /** Refuses a reference to a record this workspace does not hold. */
  checkRef(ref: EvidenceRef): void {
    const [table, key] = REF_TARGET[ref.ref_type];
    if (this.db.query(`SELECT 1 FROM ${table} WHERE ${key} = ? LIMIT 1`).get(ref.ref_id) === null) {
      throw new FlameoxError(
        "RECORD_NOT_FOUND",
        `Cannot find ${ref.ref_type} ${ref.ref_id} named by an evidence reference`,
        { details: { field: "evidence_refs", ref_type: ref.ref_type, ref_id: ref.ref_id } },
      );
    }
  }

  insertRefs(
    ownerType: "analysis" | "finding" | "hypothesis",
    ownerId: string,
    ownerRevision: number,
    refs: EvidenceRef[],
  ): void {
    const insert = this.db.query(
      "INSERT INTO evidence_refs (owner_type, owner_id, owner_revision, ref_type, ref_id, " +
        "relation) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (const r of refs)
      insert.run(ownerType, ownerId, ownerRevision, r.ref_type, r.ref_id, r.relation);
  }

  refsOf(
    ownerType: "analysis" | "finding" | "hypothesis",
    ownerId: string,
    ownerRevision: number,
  ): EvidenceRef[] {
    return this.db
      .query(
        "SELECT ref_type, ref_id, relation FROM evidence_refs WHERE owner_type = ? AND " +
          "owner_id = ? AND owner_revision = ? ORDER BY rowid",
      )
      .all(ownerType, ownerId, ownerRevision) as EvidenceRef[];
  }
}
