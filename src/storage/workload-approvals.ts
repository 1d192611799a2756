/**
 * Workload approvals and configuration provenance in the control plane. Writers call
 * these inside the workspace write lock; reads see a WAL snapshot.
 */
import type { Database } from "bun:sqlite";
import type { ApprovalRecord, DeclaredBy } from "../domain/workload/approval.ts";

export interface NewApproval {
  approval_id: string;
  workload: string;
  workload_definition_id: string;
  canonical_json: string;
  approved_at: string;
  approved_by: string;
  approved_uid: number | null;
}

export class WorkloadApprovals {
  constructor(private readonly db: Database) {}

  /** The newest approval of `workload` still in force (not revoked), or null. */
  newest(workload: string): ApprovalRecord | null {
    return (
      (this.db
        .query(
          `SELECT approval_id, workload, workload_definition_id, approved_at, approved_by
           FROM workload_approvals
           WHERE workload = ? AND revoked_at IS NULL ORDER BY approved_at DESC, rowid DESC LIMIT 1`,
        )
        .get(workload) as ApprovalRecord | null) ?? null
    );
  }

  insert(approval: NewApproval): void {
    this.db
      .query(
        `INSERT INTO workload_approvals (approval_id, workload, workload_definition_id,
         canonical_json, approved_at, approved_by, approved_uid) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        approval.approval_id,
        approval.workload,
        approval.workload_definition_id,
        approval.canonical_json,
        approval.approved_at,
        approval.approved_by,
        approval.approved_uid,
      );
  }

  /** Marks every approval of `workload` in force as revoked; returns how many. */
  revoke(workload: string, at: string, by: string): number {
    return this.db
      .query(
        "UPDATE workload_approvals SET revoked_at = ?, revoked_by = ? WHERE workload = ? AND " +
          "revoked_at IS NULL",
      )
      .run(at, by, workload).changes;
  }

  /**
   * Who wrote the declaration that has this digest: the newest configure_workload change
   * that produced it, else the file itself (edited by hand, or by anything with write access).
   */
  declaredBy(workload: string, workloadDefinitionId: string): DeclaredBy {
    const row = this.db
      .query(
        "SELECT source FROM configuration_changes WHERE workload = ? AND " +
          "workload_definition_id = ? ORDER BY recorded_at DESC, rowid DESC LIMIT 1",
      )
      .get(workload, workloadDefinitionId) as { source: string } | null;
    if (row?.source === "cli") return "cli";
    return row ? "mcp_client" : "project_file";
  }
}
