/**
 * Control-plane storage of the study records: run sets, comparisons, experiments, trials,
 * investigations, hypotheses, findings, analyses and evidence references. Each row keeps
 * the record's whole JSON (the result model callers get back) beside the columns used for
 * lookups. Run sets, comparisons and analyses are immutable once written; trials change
 * outcome as they run; hypotheses and findings grow by revision.
 */
import type { Database } from "bun:sqlite";
import { FlameoxError } from "../domain/errors.ts";

export type StudyTable =
  | "run_sets"
  | "comparisons"
  | "experiments"
  | "trials"
  | "investigations"
  | "analyses";

const KEY: Record<StudyTable, string> = {
  run_sets: "run_set_id",
  comparisons: "comparison_id",
  experiments: "experiment_id",
  trials: "trial_id",
  investigations: "investigation_id",
  analyses: "analysis_id",
};
const JSON_COLUMN: Record<StudyTable, string> = {
  run_sets: "record_json",
  comparisons: "record_json",
  experiments: "protocol_json",
  trials: "record_json",
  investigations: "record_json",
  analyses: "record_json",
};

export class StudyRecords {
  constructor(readonly db: Database) {}

  /** Inserts a row; `columns` must include the key column and the JSON column. */
  insert(table: StudyTable, columns: Record<string, string | number | null>): void {
    const names = Object.keys(columns);
    this.db
      .query(
        `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
      )
      .run(...names.map((n) => columns[n]!));
  }

  update(table: StudyTable, id: string, columns: Record<string, string | number | null>): void {
    const names = Object.keys(columns);
    const changed = this.db
      .query(
        `UPDATE ${table} SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE ${KEY[table]} = ?`,
      )
      .run(...names.map((n) => columns[n]!), id);
    if (changed.changes !== 1) throw notFound(table, id);
  }

  get<T>(table: StudyTable, id: string): T {
    const row = this.db
      .query(`SELECT ${JSON_COLUMN[table]} AS body FROM ${table} WHERE ${KEY[table]} = ?`)
      .get(id) as { body: string } | null;
    if (!row) throw notFound(table, id);
    return JSON.parse(row.body) as T;
  }

  exists(table: StudyTable, id: string): boolean {
    return this.db.query(`SELECT 1 FROM ${table} WHERE ${KEY[table]} = ?`).get(id) !== null;
  }

  /**
   * JSON bodies of rows matching `where` (fixed SQL from callers, bound values only), in `order`.
   */
  list<T>(
    table: StudyTable,
    where: string,
    params: (string | number)[],
    order: string,
    limit: number,
    offset = 0,
  ): { items: T[]; total: number } {
    const total = (
      this.db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...params) as {
        n: number;
      }
    ).n;
    const rows = this.db
      .query(
        `SELECT ${JSON_COLUMN[table]} AS body FROM ${table} WHERE ${where} ORDER BY ${order} ` +
          `LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, offset) as { body: string }[];
    return { items: rows.map((r) => JSON.parse(r.body) as T), total };
  }
}

function notFound(table: StudyTable, id: string): FlameoxError {
  const kind = table.replace(/s$/, "").replace(/_/g, " ");
  return new FlameoxError("RECORD_NOT_FOUND", `Cannot find ${kind} ${id}`, {
    details: { table, id },
  });
}
