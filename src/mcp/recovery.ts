/**
 * Which tool an agent should call next after each error code. The application's own
 * remediation names CLI commands; over MCP the first step names a tool instead.
 */
import type { ErrorCode } from "../domain/errors.ts";

const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  INVALID_ARGUMENTS:
    "Fix the field named in details.field; the tool's inputSchema lists what it accepts",
  WORKSPACE_NOT_FOUND: "Call initialize_workspace, then repeat this call",
  WORKSPACE_INVALID: "Call validate_workspace to see what is wrong",
  RUN_NOT_FOUND: "Call list_runs to find a run id",
  ARTIFACT_NOT_FOUND: "Call list_artifacts to find an artifact id",
  FRAME_NOT_FOUND:
    "Call analyze_hotspots for this run or artifact and take a frame_id from its items",
  ARTIFACT_REFUSED:
    "Call import_artifact with a regular file under the project root (or source_root " +
    '"temp"), reached without symbolic links',
  ARTIFACT_FORMAT_UNKNOWN: "Call import_artifact again with adapter set to the file's format",
  PROCESS_CANCELLED:
    "Call import_artifact again to retry; the cancelled run stays recorded as cancelled",
  PROCESS_TIMEOUT: "Call get_run with the run_id to see what was recorded",
  ARTIFACT_PARSE_FAILED: "Call get_run with the run_id to see the recorded failure",
  CORPUS_INTEGRITY_FAILED: 'Call validate_workspace with mode "full"',
  QUERY_BUDGET_EXCEEDED: "Use a smaller limit and page with next_cursor",
  WRITE_LOCK_TIMEOUT: "Retry the call; another writer held the workspace lock",
  STORAGE_FULL:
    "Free space on the workspace's file system, then retry the call; nothing published changed",
  WORKSPACE_READ_ONLY: "Only read tools work on this workspace; write on a writable copy",
  STALE_CURSOR: "Repeat the call without cursor to page through the current corpus commit",
  INTERNAL_ERROR: "Call validate_workspace to confirm the workspace is intact",
  WORKLOAD_NOT_FOUND:
    "Call workload_configuration_status for the declared workloads, or configure_workload to " +
    "declare one",
  CONFIGURATION_INVALID: "Call workload_configuration_status to see each invalid key with its path",
  REVISION_CONFLICT:
    "Call workload_configuration_status for the current configuration_id, then retry with it",
  INVALID_CAPTURE_PLAN:
    "Call plan_capture again in this server process and execute the new plan_id",
  PLAN_EXPIRED: "Call plan_capture again and execute the new plan_id within its ttl_seconds",
  PLAN_CONSUMED: "Call plan_capture again; each plan_id runs at most once",
  WORKLOAD_CHANGED: "Call plan_capture again: the workload definition changed since planning",
  EXECUTABLE_CHANGED: "Call plan_capture again to bind the executable as it is now",
  SOURCE_CHANGED: "Call plan_capture again to bind the current source state",
  CONFIGURATION_CHANGED:
    "Call plan_capture again: the workspace policy or child environment changed",
  PERMISSION_REQUIRED:
    "Call list_capabilities for the adapter's reason; the host must grant the permission",
  CONTAINMENT_UNAVAILABLE:
    "Call list_capabilities; plan without containment managed only if an uncontained run is " +
    "acceptable",
  CAPABILITY_UNAVAILABLE: "Call list_capabilities to see which adapters are available",
  PROCESS_FAILED:
    "Call get_run with the run_id to see the recorded termination and output artifacts",
  RUN_ABANDONED: "Call get_run with the run_id; plan and execute the capture again",
  WORKLOAD_NOT_APPROVED:
    "No tool can approve a workload: ask the user to review it and run the command in " +
    "details.approve_command on the CLI, then call plan_capture again",
};

export function recoveryFor(code: ErrorCode, remediation: string[]): string[] {
  const step = NEXT_STEP[code];
  return step && !remediation.includes(step) ? [step, ...remediation] : remediation;
}
