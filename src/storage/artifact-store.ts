/**
 * Artifact objects and their registrations. An artifact is its bytes (id = sha256);
 * a registration is one run's claim about it (name, kind, producer, sensitivity).
 * Effective sensitivity is the maximum over all registrations.
 */
import type { Database } from "bun:sqlite";
import { FlameoxError } from "../domain/errors.ts";
import { type ArtifactRecord, type RegistrationRecord, SENSITIVITIES } from "../domain/records.ts";
import { nowIso } from "./control-plane.ts";

export class ArtifactStore {
  constructor(private readonly db: Database) {}

  /** Inserts the artifact object if new; returns true when it already existed. */
  ensure(artifactId: string, byteLength: number): boolean {
    const existing = this.db
      .query("SELECT byte_length FROM artifacts WHERE artifact_id = ?")
      .get(artifactId) as { byte_length: number } | null;
    if (existing) {
      if (existing.byte_length !== byteLength) {
        throw new FlameoxError(
          "ARTIFACT_INTEGRITY_FAILED",
          `Artifact ${artifactId} is recorded with ${existing.byte_length} bytes ` +
            `but ${byteLength} arrived`,
        );
      }
      return true;
    }
    this.db
      .query("INSERT INTO artifacts (artifact_id, byte_length, created_at) VALUES (?, ?, ?)")
      .run(artifactId, byteLength, nowIso());
    return false;
  }

  register(registration: RegistrationRecord): void {
    this.db
      .query(
        `INSERT INTO registrations (registration_id, run_id, artifact_id, display_name, kind,
           media_type, role, producer, producer_version, sensitivity, registered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        registration.registration_id,
        registration.run_id,
        registration.artifact_id,
        registration.display_name,
        registration.kind,
        registration.media_type,
        registration.role,
        registration.producer,
        registration.producer_version,
        registration.sensitivity,
        registration.registered_at,
      );
  }

  /**
   * Updates kind/media type/producer of a registration once extraction has identified the format.
   */
  refineRegistration(
    registrationId: string,
    fields: {
      kind: string;
      media_type: string;
      producer: string | null;
      producer_version: string | null;
    },
  ): void {
    this.db
      .query(
        `UPDATE registrations SET kind = ?, media_type = ?, producer = coalesce(producer, ?),
           producer_version = coalesce(producer_version, ?) WHERE registration_id = ?`,
      )
      .run(
        fields.kind,
        fields.media_type,
        fields.producer,
        fields.producer_version,
        registrationId,
      );
  }

  exists(artifactId: string): boolean {
    return this.db.query("SELECT 1 FROM artifacts WHERE artifact_id = ?").get(artifactId) !== null;
  }

  get(artifactId: string): ArtifactRecord {
    const row = this.db.query("SELECT * FROM artifacts WHERE artifact_id = ?").get(artifactId) as {
      artifact_id: string;
      byte_length: number;
      created_at: string;
    } | null;
    if (!row) {
      throw new FlameoxError("ARTIFACT_NOT_FOUND", `Cannot find artifact ${artifactId}`, {
        remediation: ["List artifacts with `flameox artifacts list`"],
      });
    }
    // Aggregated in SQL so an artifact imported thousands of times stays cheap to describe.
    const agg = this.db
      .query(
        `SELECT count(*) AS n, group_concat(DISTINCT kind) AS kinds,
           max(CASE sensitivity WHEN 'sensitive' THEN 2 WHEN 'internal' THEN 1 ELSE 0 END) AS level
         FROM registrations WHERE artifact_id = ?`,
      )
      .get(artifactId) as { n: number; kinds: string | null; level: number | null };
    return {
      artifact_id: row.artifact_id,
      byte_length: row.byte_length,
      created_at: row.created_at,
      effective_sensitivity: SENSITIVITIES[agg.level ?? 0]!,
      kinds: (agg.kinds ?? "").split(",").filter(Boolean).sort(),
      registration_count: agg.n,
    };
  }

  registrations(artifactId: string, limit = -1): RegistrationRecord[] {
    return this.db
      .query(
        "SELECT * FROM registrations WHERE artifact_id = ? ORDER BY registered_at, " +
          "registration_id LIMIT ?",
      )
      .all(artifactId, limit) as RegistrationRecord[];
  }

  registrationsOfRun(runId: string): RegistrationRecord[] {
    return this.db
      .query("SELECT * FROM registrations WHERE run_id = ? ORDER BY registered_at, registration_id")
      .all(runId) as RegistrationRecord[];
  }

  /** Newest first, keyset-paginated on (created_at, artifact_id). */
  list(
    limit: number,
    after?: { created_at: string; artifact_id: string },
  ): { artifacts: ArtifactRecord[]; total: number } {
    const total = (this.db.query("SELECT count(*) AS n FROM artifacts").get() as { n: number }).n;
    const rows = (
      after
        ? this.db
            .query(
              "SELECT artifact_id FROM artifacts WHERE (created_at, artifact_id) < (?, ?) " +
                "ORDER BY created_at DESC, artifact_id DESC LIMIT ?",
            )
            .all(after.created_at, after.artifact_id, limit)
        : this.db
            .query(
              "SELECT artifact_id FROM artifacts ORDER BY created_at DESC, artifact_id DESC " +
                "LIMIT ?",
            )
            .all(limit)
    ) as { artifact_id: string }[];
    return { artifacts: rows.map((r) => this.get(r.artifact_id)), total };
  }

  allIds(): { artifact_id: string; byte_length: number }[] {
    return this.db
      .query("SELECT artifact_id, byte_length FROM artifacts ORDER BY artifact_id")
      .all() as {
      artifact_id: string;
      byte_length: number;
    }[];
  }
}
