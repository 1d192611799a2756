/**
 * Approving declared workloads, and the check every execution path makes. A person
 * approves on the CLI the exact canonical form they were shown (bound by its digest, so
 * an edit between showing and confirming is refused); plan_capture, execute_capture_plan,
 * `capture run`, plan_experiment and every experiment trial refuse a digest that no
 * approval covers. Nothing here is reachable from an MCP tool except the read and the check.
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { canonicalJson } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { newApprovalId } from "../../domain/ids.ts";
import {
  type ApprovalState,
  approvalOf,
  notApproved,
  type WorkloadApproval,
} from "../../domain/workload/approval.ts";
import {
  type CanonicalWorkload,
  canonicalWorkload,
  type WorkloadDefinition,
} from "../../domain/workload/project-config.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { WorkloadApprovals } from "../../storage/workload-approvals.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { requireWorkloadConfig, WORKLOAD_FILE } from "./workload-file.ts";

export interface ApproveResult {
  workload: string;
  workload_definition_id: string;
  /** approved: recorded now; already_approved: this digest was the newest approval already. */
  outcome: "approved" | "already_approved";
  previous_state: ApprovalState;
  /** The canonical form approved: what the digest covers. */
  canonical: CanonicalWorkload;
  approval: WorkloadApproval;
}

export interface RevokeResult {
  workload: string;
  revoked: number;
  approval: WorkloadApproval;
}

/**
 * The operating-system user running this process: who confirmed on the CLI. Bun's
 * userInfo() answers "unknown" for the name, so the name comes from /etc/passwd by uid
 * when it must; failing both, the uid alone names the user.
 */
export function currentUser(): { name: string; uid: number | null } {
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  let name: string | null = null;
  try {
    const info = userInfo();
    if (info.username && info.username !== "unknown") name = info.username;
  } catch {
    // No passwd entry for this uid; fall through to the file.
  }
  if (name === null && uid !== null) name = passwdName(uid);
  return { name: name ?? (uid === null ? "unknown user" : `uid ${uid}`), uid };
}

function passwdName(uid: number): string | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const fields = line.split(":");
      if (fields.length >= 3 && fields[2] === String(uid) && fields[0]) return fields[0];
    }
  } catch {
    // No readable passwd file: the uid will name the user.
  }
  return null;
}

export function workloadApproval(ws: Workspace, definition: WorkloadDefinition): WorkloadApproval {
  const store = new WorkloadApprovals(ws.control.db);
  return approvalOf(
    definition.name,
    definition.workload_definition_id,
    store.newest(definition.name),
    store.declaredBy(definition.name, definition.workload_definition_id),
  );
}

/**
 * Throws WORKLOAD_NOT_APPROVED unless the newest approval of this workload covers exactly this
 * digest.
 */
export function requireApproved(ws: Workspace, definition: WorkloadDefinition): void {
  const approval = workloadApproval(ws, definition);
  if (approval.state !== "approved") throw notApproved(definition.name, approval);
}

/**
 * Records a person's approval of workload `name` as it is declared now. With
 * `expected`, the declaration must still have that digest (what the person was shown).
 */
export function approveWorkload(
  ws: Workspace,
  name: string,
  options: { expected?: string; approver?: { name: string; uid: number | null } } = {},
): ApproveResult {
  const approver = options.approver ?? currentUser();
  return ws.control.withWriteLock(() => {
    const definition = declared(ws, name);
    if (options.expected !== undefined && options.expected !== definition.workload_definition_id) {
      throw new FlameoxError(
        "WORKLOAD_CHANGED",
        `Cannot approve workload ${name}: its declaration changed since it was shown ` +
          `(shown ${options.expected}, now ${definition.workload_definition_id})`,
        {
          details: { shown: options.expected, current: definition.workload_definition_id },
          remediation: [
            `Review it again with \`flameox workload show ${name}\`, then approve what is ` +
              `declared now`,
          ],
        },
      );
    }
    const before = workloadApproval(ws, definition);
    if (before.state !== "approved") {
      new WorkloadApprovals(ws.control.db).insert({
        approval_id: newApprovalId(),
        workload: name,
        workload_definition_id: definition.workload_definition_id,
        canonical_json: canonicalJson(canonicalWorkload(definition)),
        approved_at: nowIso(),
        approved_by: approver.name,
        approved_uid: approver.uid,
      });
    }
    return {
      workload: name,
      workload_definition_id: definition.workload_definition_id,
      outcome: before.state === "approved" ? "already_approved" : "approved",
      previous_state: before.state,
      canonical: canonicalWorkload(definition),
      approval: workloadApproval(ws, definition),
    };
  });
}

/** Withdraws every approval of workload `name`; it runs again only after a new approval. */
export function revokeWorkload(
  ws: Workspace,
  name: string,
  options: { revoker?: { name: string } } = {},
): RevokeResult {
  const revoker = options.revoker ?? currentUser();
  return ws.control.withWriteLock(() => {
    const definition = declared(ws, name);
    const revoked = new WorkloadApprovals(ws.control.db).revoke(name, nowIso(), revoker.name);
    return { workload: name, revoked, approval: workloadApproval(ws, definition) };
  });
}

function declared(ws: Workspace, name: string): WorkloadDefinition {
  const config = requireWorkloadConfig(ws.paths.projectRoot);
  const definition = config.workloads[name];
  if (!definition) {
    throw new FlameoxError(
      "WORKLOAD_NOT_FOUND",
      `Cannot find workload ${JSON.stringify(name)} in ${WORKLOAD_FILE}`,
      {
        details: { declared: Object.keys(config.workloads).sort() },
        remediation: ["List workloads with `flameox workload list`"],
      },
    );
  }
  return definition;
}
