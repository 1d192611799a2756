/**
 * Which tool an agent should call next after each error code. The application's own
 * remediation names CLI commands; over MCP the first step names a tool instead.
 */
import type { ErrorCode } from "../domain/errors.ts";

const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  INVALID_ARGUMENTS: "Fix the field named in details.field; the tool's inputSchema lists what it accepts",
  WORKSPACE_NOT_FOUND: "Call initialize_workspace, then repeat this call",
  WORKSPACE_INVALID: "Call validate_workspace to see what is wrong",
  RUN_NOT_FOUND: "Call list_runs to find a run id",
  ARTIFACT_NOT_FOUND: "Call list_artifacts to find an artifact id",
  FRAME_NOT_FOUND: "Call analyze_hotspots for this run or artifact and take a frame_id from its items",
  ARTIFACT_REFUSED: "Call import_artifact with a regular file under the project root (or source_root \"temp\"), reached without symbolic links",
  ARTIFACT_FORMAT_UNKNOWN: "Call import_artifact again with adapter set to the file's format",
  PROCESS_CANCELLED: "Call import_artifact again to retry; the cancelled run stays recorded as cancelled",
  PROCESS_TIMEOUT: "Call get_run with the run_id to see what was recorded",
  ARTIFACT_PARSE_FAILED: "Call get_run with the run_id to see the recorded failure",
  CORPUS_INTEGRITY_FAILED: "Call validate_workspace with mode \"full\"",
  QUERY_BUDGET_EXCEEDED: "Use a smaller limit and page with next_cursor",
  WRITE_LOCK_TIMEOUT: "Retry the call; another writer held the workspace lock",
  STALE_CURSOR: "Repeat the call without cursor to page through the current corpus commit",
  INTERNAL_ERROR: "Call validate_workspace to confirm the workspace is intact",
};

export function recoveryFor(code: ErrorCode, remediation: string[]): string[] {
  const step = NEXT_STEP[code];
  return step && !remediation.includes(step) ? [step, ...remediation] : remediation;
}
