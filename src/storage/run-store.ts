/**
 * Runs and their append-only revisions. Every status change writes a new revision row
 * with the full state, so the history of a run can be replayed and audited.
 */
import type { Database } from "bun:sqlite";
import type { Limitation } from "../domain/evidence-status.ts";
import { FlameoxError } from "../domain/errors.ts";
import type {
  CaptureStatus,
  ExecutionStatus,
  ExtractionStatus,
  RunRecord,
  RunType,
  ValidationStatus,
} from "../domain/records.ts";
import { nowIso } from "./control-plane.ts";
import { currentLease } from "./process-lease.ts";

interface RunRow {
  run_id: string;
  run_type: RunType;
  created_at: string;
  updated_at: string;
  revision: number;
  execution_status: ExecutionStatus;
  capture_status: CaptureStatus;
  extraction_status: ExtractionStatus;
  validation_status: ValidationStatus;
  limitations_json: string;
  error_json: string | null;
  lease_pid: number | null;
  lease_boot_id: string | null;
  lease_start_time: string | null;
  workload_json: string | null;
  execution_json: string | null;
  source_identity_json: string | null;
  environment_identity_json: string | null;
}

/** Identities and execution details of an execution run, stored as JSON beside its statuses. */
export interface RunExecutionFields {
  workload_definition_id?: string | null;
  workload_instance_id?: string | null;
  source_state_id?: string | null;
  environment_id?: string | null;
  workload?: unknown;
  execution?: unknown;
  source_identity?: unknown;
  environment_identity?: unknown;
}

export interface RunUpdate {
  execution_status?: ExecutionStatus;
  capture_status?: CaptureStatus;
  extraction_status?: ExtractionStatus;
  validation_status?: ValidationStatus;
  limitations?: Limitation[];
  error?: { code: string; message: string } | null;
  /** Replaces the execution details document (termination, resources, …). */
  execution?: unknown;
  /** Drops the lease once the run is terminal. */
  releaseLease?: boolean;
}

export class RunStore {
  constructor(private readonly db: Database) {}

  create(
    runId: string,
    runType: RunType,
    initial: RunUpdate,
    fields: RunExecutionFields = {},
  ): void {
    const now = nowIso();
    const lease = currentLease();
    const json = (value: unknown) =>
      value === undefined || value === null ? null : JSON.stringify(value);
    this.db
      .query(
        `INSERT INTO runs (run_id, run_type, created_at, updated_at, revision, execution_status,
           capture_status, extraction_status, validation_status, limitations_json, error_json,
           lease_pid, lease_boot_id, lease_start_time,
           workload_definition_id, workload_instance_id, source_state_id, environment_id,
           workload_json, execution_json, source_identity_json, environment_identity_json)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        runType,
        now,
        now,
        initial.execution_status ?? "not_applicable",
        initial.capture_status ?? "pending",
        initial.extraction_status ?? "not_requested",
        initial.validation_status ?? "not_requested",
        JSON.stringify(initial.limitations ?? []),
        initial.error ? JSON.stringify(initial.error) : null,
        lease.pid,
        lease.boot_id,
        lease.start_time,
        fields.workload_definition_id ?? null,
        fields.workload_instance_id ?? null,
        fields.source_state_id ?? null,
        fields.environment_id ?? null,
        json(fields.workload),
        json(initial.execution ?? fields.execution),
        json(fields.source_identity),
        json(fields.environment_identity),
      );
    this.appendRevision(runId);
  }

  update(runId: string, change: RunUpdate): void {
    const row = this.row(runId);
    const limitations = change.limitations ?? JSON.parse(row.limitations_json);
    const error =
      change.error === undefined
        ? row.error_json
        : change.error === null
          ? null
          : JSON.stringify(change.error);
    const execution =
      change.execution === undefined ? row.execution_json : JSON.stringify(change.execution);
    const release = change.releaseLease === true;
    this.db
      .query(
        `UPDATE runs SET updated_at = ?, revision = revision + 1, execution_status = ?,
           capture_status = ?, extraction_status = ?, validation_status = ?,
           limitations_json = ?, error_json = ?, execution_json = ?,
           lease_pid = CASE WHEN ? THEN NULL ELSE lease_pid END,
           lease_boot_id = CASE WHEN ? THEN NULL ELSE lease_boot_id END,
           lease_start_time = CASE WHEN ? THEN NULL ELSE lease_start_time END
         WHERE run_id = ?`,
      )
      .run(
        nowIso(),
        change.execution_status ?? row.execution_status,
        change.capture_status ?? row.capture_status,
        change.extraction_status ?? row.extraction_status,
        change.validation_status ?? row.validation_status,
        JSON.stringify(limitations),
        error,
        execution,
        release,
        release,
        release,
        runId,
      );
    this.appendRevision(runId);
  }

  /** Workload, identities and execution details of a run; nulls for an import run. */
  executionFields(runId: string): {
    workload: unknown;
    execution: unknown;
    source_identity: unknown;
    environment_identity: unknown;
  } {
    const row = this.row(runId);
    const parse = (text: string | null) => (text === null ? null : JSON.parse(text));
    return {
      workload: parse(row.workload_json),
      execution: parse(row.execution_json),
      source_identity: parse(row.source_identity_json),
      environment_identity: parse(row.environment_identity_json),
    };
  }

  get(runId: string): RunRecord {
    const row = this.row(runId);
    const artifactIds = this.db
      .query("SELECT DISTINCT artifact_id FROM registrations WHERE run_id = ? ORDER BY artifact_id")
      .all(runId) as { artifact_id: string }[];
    const generations = this.db
      .query(
        "SELECT generation_id FROM extractions WHERE run_id = ? AND generation_id IS NOT " +
          "NULL ORDER BY started_at",
      )
      .all(runId) as { generation_id: string }[];
    return toRecord(
      row,
      artifactIds.map((a) => a.artifact_id),
      generations.map((g) => g.generation_id),
    );
  }

  exists(runId: string): boolean {
    return this.db.query("SELECT 1 FROM runs WHERE run_id = ?").get(runId) !== null;
  }

  /** Newest first, keyset-paginated on (created_at, run_id). */
  list(
    limit: number,
    after?: { created_at: string; run_id: string },
  ): { runs: RunRecord[]; total: number } {
    const total = (this.db.query("SELECT count(*) AS n FROM runs").get() as { n: number }).n;
    const rows = (
      after
        ? this.db
            .query(
              "SELECT * FROM runs WHERE (created_at, run_id) < (?, ?) ORDER BY created_at " +
                "DESC, run_id DESC LIMIT ?",
            )
            .all(after.created_at, after.run_id, limit)
        : this.db
            .query("SELECT * FROM runs ORDER BY created_at DESC, run_id DESC LIMIT ?")
            .all(limit)
    ) as RunRow[];
    return { runs: rows.map((row) => this.get(row.run_id)), total };
  }

  private row(runId: string): RunRow {
    const row = this.db.query("SELECT * FROM runs WHERE run_id = ?").get(runId) as RunRow | null;
    if (!row)
      throw new FlameoxError("RUN_NOT_FOUND", `Cannot find run ${runId}`, {
        remediation: ["List runs with `flameox runs list`"],
      });
    return row;
  }

  private appendRevision(runId: string): void {
    const row = this.row(runId);
    this.db
      .query(
        "INSERT INTO run_revisions (run_id, revision, recorded_at, state_json) VALUES (?, ?, ?, ?)",
      )
      .run(runId, row.revision, row.updated_at, JSON.stringify(row));
  }
}

function toRecord(row: RunRow, artifactIds: string[], generationIds: string[]): RunRecord {
  return {
    run_id: row.run_id,
    run_type: row.run_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revision: row.revision,
    execution_status: row.execution_status,
    capture_status: row.capture_status,
    extraction_status: row.extraction_status,
    validation_status: row.validation_status,
    limitations: JSON.parse(row.limitations_json),
    error: row.error_json ? JSON.parse(row.error_json) : null,
    artifact_ids: artifactIds,
    generation_ids: generationIds,
  };
}
