/**
 * configure_workload: writes one validated workload into flameox.toml and never runs
 * it. Create adds it (idempotent when the same definition is already there); replace
 * needs the configuration_id the caller last saw (compare-and-swap), so a concurrent
 * edit is a REVISION_CONFLICT, never a lost update. The file is edited surgically,
 * verified, written atomically under the workspace write lock, and the change is
 * recorded with its source.
 *
 * What it writes is a proposal: a new digest that no approval covers, so it cannot run
 * until a person approves it on the CLI. Replacing an approved workload leaves it
 * unapproved (stale); the result says so and names the approving command.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type } from "arktype";
import { FlameoxError } from "../../domain/errors.ts";
import { newOperationId } from "../../domain/ids.ts";
import type { WorkloadApproval } from "../../domain/workload/approval.ts";
import { type ConfigDiagnostic, normalizeWorkload } from "../../domain/workload/project-config.ts";
import { WorkloadSpec } from "../../domain/workload/workload-schema.ts";
import { nowIso } from "../../storage/control-plane.ts";
import type { Workspace } from "../../storage/workspace.ts";
import {
  invalidConfiguration,
  readWorkloadFile,
  WORKLOAD_FILE,
  workloadFilePath,
} from "./workload-file.ts";
import { workloadApproval } from "./workload-approval.ts";
import { editWorkload } from "./workload-toml.ts";

export interface ConfigureWorkloadRequest {
  name: string;
  operation: "create" | "replace";
  spec: unknown;
  expected_configuration_id?: string;
  /** Who asks: an MCP client (a proposal) or the CLI. Recorded with the change. */
  source: "mcp_client" | "cli";
}

export interface ConfigureWorkloadResult {
  name: string;
  operation: "create" | "replace";
  changed: boolean;
  path: string;
  previous_configuration_id: string | null;
  configuration_id: string;
  workload_definition_id: string;
  /** Approval of the definition now declared: a change is never approved by writing it. */
  approval: WorkloadApproval;
}

export function configureWorkload(
  ws: Workspace,
  request: ConfigureWorkloadRequest,
): ConfigureWorkloadResult {
  const spec = WorkloadSpec(request.spec);
  if (spec instanceof type.errors) {
    throw invalidConfiguration(
      spec.map((e) => ({
        path: `workloads.${request.name}.${e.path.join(".")}`.replace(/\.$/, ""),
        message: e.message,
      })),
    );
  }
  const diagnostics: ConfigDiagnostic[] = [];
  const definition = normalizeWorkload(
    request.name,
    spec,
    `workloads.${request.name}`,
    diagnostics,
  );
  if (!definition) throw invalidConfiguration(diagnostics);

  return ws.control.withWriteLock(() => {
    const file = readWorkloadFile(ws.paths.projectRoot);
    if (file.state === "invalid") throw invalidConfiguration(file.diagnostics);
    const current = file.state === "valid" ? file.config : null;
    const previousId = current?.configuration_id ?? null;
    const existing = current?.workloads[request.name] ?? null;
    const base = {
      name: request.name,
      operation: request.operation,
      path: WORKLOAD_FILE,
      previous_configuration_id: previousId,
    };
    if (
      request.expected_configuration_id !== undefined &&
      request.expected_configuration_id !== previousId
    )
      throw conflict(request, previousId);
    if (request.operation === "replace") {
      if (request.expected_configuration_id === undefined) {
        throw new FlameoxError(
          "INVALID_ARGUMENTS",
          "Cannot replace a workload without expected_configuration_id",
          {
            details: { field: "expected_configuration_id" },
            remediation: [
              "Read configuration_id from workload_configuration_status and pass it as " +
                "expected_configuration_id",
            ],
          },
        );
      }
      if (!existing)
        throw new FlameoxError(
          "WORKLOAD_NOT_FOUND",
          `Cannot replace workload ${request.name}: it is not declared`,
          { remediation: ["Use operation create"] },
        );
    } else if (existing) {
      if (existing.workload_definition_id === definition.workload_definition_id) {
        return {
          ...base,
          changed: false,
          configuration_id: previousId!,
          workload_definition_id: definition.workload_definition_id,
          approval: workloadApproval(ws, existing),
        };
      }
      throw new FlameoxError(
        "REVISION_CONFLICT",
        `Cannot create workload ${request.name}: a different definition with that name exists`,
        {
          details: { configuration_id: previousId },
          remediation: ["Use operation replace with expected_configuration_id to change it"],
        },
      );
    }
    const edited = editWorkload(file.text ?? "", current, request.name, spec);
    writeAtomically(workloadFilePath(ws.paths.projectRoot), edited.text);
    ws.control.db
      .query(
        `INSERT INTO configuration_changes (change_id, recorded_at, source, operation, workload,
           previous_configuration_id, configuration_id, workload_definition_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        newOperationId(),
        nowIso(),
        request.source,
        request.operation,
        request.name,
        previousId,
        edited.config.configuration_id,
        definition.workload_definition_id,
      );
    const written = edited.config.workloads[request.name]!;
    return {
      ...base,
      changed: true,
      configuration_id: edited.config.configuration_id,
      workload_definition_id: definition.workload_definition_id,
      approval: workloadApproval(ws, written),
    };
  });
}

function conflict(request: ConfigureWorkloadRequest, current: string | null): FlameoxError {
  return new FlameoxError(
    "REVISION_CONFLICT",
    `Cannot ${request.operation} workload ${request.name}: flameox.toml changed since ` +
      `configuration ${request.expected_configuration_id}`,
    {
      details: { configuration_id: current },
      remediation: [
        "Read the current configuration with workload_configuration_status, then retry with " +
          "its configuration_id",
      ],
    },
  );
}

/**
 * Temp file beside the target, fsync, rename over it, fsync the directory: readers see old or new,
 * never half.
 */
function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.flameox-${process.pid}-${Date.now()}.tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  const fd = openSync(tmp, "r");
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
  const dir = openSync(dirname(path), "r");
  fsyncSync(dir);
  closeSync(dir);
}
