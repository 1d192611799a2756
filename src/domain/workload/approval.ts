/**
 * Workload approval: a person approves one exact canonical digest of one named workload.
 * The workload may run while its declaration still has that digest; any edit gives it a
 * new digest, which no approval covers, so the approval no longer applies ("stale")
 * until someone approves the new form. Only the newest approval of a name counts, so an
 * older approved form cannot come back by reverting the file to it.
 * Pure: records come in, a state comes out.
 */
import { FlameoxError } from "../errors.ts";

export type ApprovalState = "approved" | "unapproved" | "stale";

/**
 * Who wrote the current declaration, as far as flameox saw: through configure_workload (an MCP
 * client), the CLI, or the file itself.
 */
export type DeclaredBy = "mcp_client" | "cli" | "project_file";

export interface ApprovalRecord {
  approval_id: string;
  workload: string;
  workload_definition_id: string;
  approved_at: string;
  /** The operating-system user who confirmed it on the CLI. */
  approved_by: string;
}

export interface WorkloadApproval {
  state: ApprovalState;
  workload_definition_id: string;
  /** The digest the newest approval covers (differs from the current one when stale). */
  approved_workload_definition_id: string | null;
  approved_at: string | null;
  approved_by: string | null;
  declared_by: DeclaredBy;
  /** The command a person runs to approve the current form; null once approved. */
  approve_command: string | null;
}

export const approveCommand = (name: string): string => `flameox workload approve ${name}`;

export function approvalOf(
  name: string,
  currentDigest: string,
  newest: ApprovalRecord | null,
  declaredBy: DeclaredBy,
): WorkloadApproval {
  const state: ApprovalState =
    newest === null
      ? "unapproved"
      : newest.workload_definition_id === currentDigest
        ? "approved"
        : "stale";
  return {
    state,
    workload_definition_id: currentDigest,
    approved_workload_definition_id: newest?.workload_definition_id ?? null,
    approved_at: newest?.approved_at ?? null,
    approved_by: newest?.approved_by ?? null,
    declared_by: declaredBy,
    approve_command: state === "approved" ? null : approveCommand(name),
  };
}

/** The refusal every execution path gives for a digest no person approved. */
export function notApproved(name: string, approval: WorkloadApproval): FlameoxError {
  const why =
    approval.state === "stale"
      ? `its declaration changed since it was approved ` +
        `(approved ${approval.approved_workload_definition_id}, ` +
        `now ${approval.workload_definition_id})`
      : "no person has approved it";
  return new FlameoxError(
    "WORKLOAD_NOT_APPROVED",
    `Cannot run workload ${name}: ${why}. A person must review and approve it with ` +
      `\`${approveCommand(name)}\``,
    {
      details: {
        workload: name,
        state: approval.state,
        workload_definition_id: approval.workload_definition_id,
        approved_workload_definition_id: approval.approved_workload_definition_id,
        declared_by: approval.declared_by,
        approve_command: approveCommand(name),
      },
      remediation: [
        `Run \`${approveCommand(name)}\` in a terminal: it shows the canonical form and asks ` +
          `for confirmation`,
        "No MCP tool can approve a workload; approval is a person's decision on the CLI",
      ],
    },
  );
}
