/**
 * What the control plane knows about a run's identity, for comparison compatibility
 * checks: statuses and, for execution runs, workload, source and environment identities.
 * Columns added by later schema work are read only when present, so an import-only
 * workspace yields explicit nulls (missing identity), never guesses.
 */
import type { Database } from "bun:sqlite";

export interface RunIdentity {
  run_id: string;
  run_type: string;
  execution_status: string;
  capture_status: string;
  validation_status: string;
  workload_definition_id: string | null;
  workload_instance_id: string | null;
  source_state_id: string | null;
  source_quality: string | null;
  environment_id: string | null;
  environment_quality: string | null;
}

const OPTIONAL = [
  "workload_definition_id",
  "workload_instance_id",
  "source_state_id",
  "environment_id",
  "source_identity_json",
  "environment_identity_json",
];

export function readRunIdentities(
  db: Database,
  runIds: readonly string[],
): Map<string, RunIdentity> {
  const present = new Set(
    (db.query("PRAGMA table_info(runs)").all() as { name: string }[]).map((c) => c.name),
  );
  const optional = OPTIONAL.filter((c) => present.has(c));
  const select = [
    "run_id",
    "run_type",
    "execution_status",
    "capture_status",
    "validation_status",
    ...optional,
  ].join(", ");
  const out = new Map<string, RunIdentity>();
  const query = db.query(`SELECT ${select} FROM runs WHERE run_id = ?`);
  for (const id of runIds) {
    const row = query.get(id) as Record<string, string | null> | null;
    if (!row) continue;
    const quality = (json: string | null | undefined) => {
      try {
        return json
          ? ((JSON.parse(json) as { identity_quality?: string }).identity_quality ?? null)
          : null;
      } catch {
        return null;
      }
    };
    out.set(id, {
      run_id: id,
      run_type: row.run_type!,
      execution_status: row.execution_status!,
      capture_status: row.capture_status!,
      validation_status: row.validation_status!,
      workload_definition_id: row.workload_definition_id ?? null,
      workload_instance_id: row.workload_instance_id ?? null,
      source_state_id: row.source_state_id ?? null,
      source_quality: quality(row.source_identity_json),
      environment_id: row.environment_id ?? null,
      environment_quality: quality(row.environment_identity_json),
    });
  }
  return out;
}
