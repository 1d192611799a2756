/**
 * The one error type of flameox. Every failure a caller is expected to handle carries a
 * stable code from a closed list; CLI exit codes and MCP error payloads derive from that
 * code here and nowhere else.
 */
export const ERROR_CODES = {
  INVALID_ARGUMENTS: { exit: 2, retryable: false },
  WORKSPACE_NOT_FOUND: { exit: 2, retryable: false },
  WORKSPACE_INVALID: { exit: 5, retryable: false },
  WORKSPACE_SCHEMA_UNSUPPORTED: { exit: 5, retryable: false },
  RUN_NOT_FOUND: { exit: 2, retryable: false },
  ARTIFACT_NOT_FOUND: { exit: 2, retryable: false },
  FRAME_NOT_FOUND: { exit: 2, retryable: false },
  CAPABILITY_UNAVAILABLE: { exit: 3, retryable: false },
  EXECUTION_REFUSED: { exit: 9, retryable: false },
  ARTIFACT_REFUSED: { exit: 9, retryable: false },
  PROCESS_FAILED: { exit: 4, retryable: true },
  PROCESS_TIMEOUT: { exit: 8, retryable: true },
  PROCESS_CANCELLED: { exit: 8, retryable: true },
  ARTIFACT_TOO_LARGE: { exit: 9, retryable: false },
  ARTIFACT_INTEGRITY_FAILED: { exit: 5, retryable: false },
  ARTIFACT_PARSE_FAILED: { exit: 4, retryable: false },
  // The arguments were fine; the artifact could not be read: a parse failure (exit 4).
  ARTIFACT_FORMAT_UNKNOWN: { exit: 4, retryable: false },
  EVIDENCE_SCHEMA_MISMATCH: { exit: 5, retryable: false },
  CORPUS_INTEGRITY_FAILED: { exit: 5, retryable: false },
  QUERY_BUDGET_EXCEEDED: { exit: 9, retryable: false },
  EVIDENCE_UNAVAILABLE: { exit: 1, retryable: false },
  STORAGE_QUOTA_EXCEEDED: { exit: 9, retryable: false },
  WRITE_LOCK_TIMEOUT: { exit: 7, retryable: true },
  STALE_CURSOR: { exit: 2, retryable: false },
  // An MCP tool whose group the server was not started with (`--tools`).
  TOOL_NOT_ENABLED: { exit: 2, retryable: false },
  // Workloads, plans and capture: a declared workload is the only thing a capture can run.
  WORKLOAD_NOT_FOUND: { exit: 2, retryable: false },
  CONFIGURATION_INVALID: { exit: 2, retryable: false },
  REVISION_CONFLICT: { exit: 7, retryable: false },
  INVALID_CAPTURE_PLAN: { exit: 2, retryable: false },
  PLAN_EXPIRED: { exit: 2, retryable: false },
  PLAN_CONSUMED: { exit: 9, retryable: false },
  WORKLOAD_CHANGED: { exit: 9, retryable: false },
  EXECUTABLE_CHANGED: { exit: 9, retryable: false },
  SOURCE_CHANGED: { exit: 9, retryable: false },
  CONFIGURATION_CHANGED: { exit: 9, retryable: false },
  PERMISSION_REQUIRED: { exit: 3, retryable: false },
  CONTAINMENT_UNAVAILABLE: { exit: 3, retryable: false },
  RUN_ABANDONED: { exit: 4, retryable: true },
  // Approval: a workload runs only in a form a person approved on the CLI.
  WORKLOAD_NOT_APPROVED: { exit: 9, retryable: false },
  CONFIRMATION_REQUIRED: { exit: 2, retryable: false },
  // Experiments, run sets and comparisons.
  RECORD_NOT_FOUND: { exit: 2, retryable: false },
  COMPARISON_INVALID: { exit: 6, retryable: false },
  EXPERIMENT_INVALID: { exit: 2, retryable: false },
  // The workspace's storage cannot take writes: the file system is full (or over quota),
  // or the workspace is read-only. Reads still work; nothing published changed.
  STORAGE_FULL: { exit: 10, retryable: true },
  WORKSPACE_READ_ONLY: { exit: 10, retryable: false },
  INTERNAL_ERROR: { exit: 1, retryable: false },
} as const satisfies Record<string, { exit: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  remediation: string[];
  details?: Record<string, unknown>;
  run_id?: string;
}

export class FlameoxError extends Error {
  readonly code: ErrorCode;
  readonly remediation: string[];
  readonly details: Record<string, unknown> | undefined;
  readonly runId: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      remediation?: string[];
      details?: Record<string, unknown>;
      runId?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FlameoxError";
    this.code = code;
    this.remediation = options.remediation ?? [];
    this.details = options.details;
    this.runId = options.runId;
  }

  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }

  get exitCode(): number {
    return ERROR_CODES[this.code].exit;
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      remediation: this.remediation,
    };
    if (this.details) payload.details = this.details;
    if (this.runId) payload.run_id = this.runId;
    return payload;
  }
}

/**
 * Wraps anything thrown into a FlameoxError; unknown defects become INTERNAL_ERROR without a stack.
 */
export function asFlameoxError(error: unknown): FlameoxError {
  if (error instanceof FlameoxError) return error;
  const storage = storageFailure(error);
  if (storage) return storage;
  const message = error instanceof Error ? error.message : String(error);
  return new FlameoxError("INTERNAL_ERROR", `Unexpected internal failure: ${message}`, {
    remediation: [
      "Run `flameox validate` to confirm the workspace is intact",
      "Report the failure with the command that caused it",
    ],
    cause: error,
  });
}

export function isFlameoxError(error: unknown, code?: ErrorCode): error is FlameoxError {
  return error instanceof FlameoxError && (code === undefined || error.code === code);
}

/**
 * A file-system or SQLite failure that means the workspace cannot take writes: full
 * (ENOSPC, EDQUOT, SQLITE_FULL) or read-only (EROFS, SQLITE_READONLY). Null for anything
 * else. Recognised by errno and SQLite codes, and by their messages for errors that
 * crossed a process boundary as text (a parse worker's stderr).
 */
export function storageFailure(error: unknown): FlameoxError | null {
  if (error instanceof FlameoxError)
    return error.code === "STORAGE_FULL" || error.code === "WORKSPACE_READ_ONLY" ? error : null;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const message = error instanceof Error ? error.message : String(error);
  if (
    /^(ENOSPC|EDQUOT|SQLITE_FULL)/.test(code) ||
    /ENOSPC|EDQUOT|No space left on device|Disk quota exceeded|database or disk is full/i.test(
      message,
    )
  ) {
    return new FlameoxError(
      "STORAGE_FULL",
      `Cannot write to the workspace: its file system is full (${message.slice(0, 200)})`,
      {
        remediation: [
          "Free space on the workspace's file system (or raise its quota), then retry",
          "Run `flameox recover` to reclaim staging left by interrupted operations",
        ],
        cause: error,
      },
    );
  }
  if (
    /^(EROFS|SQLITE_READONLY)/.test(code) ||
    /EROFS|read-only file system|attempt to write a readonly database/i.test(message)
  ) {
    return new FlameoxError(
      "WORKSPACE_READ_ONLY",
      `Cannot write to the workspace: it is read-only (${message.slice(0, 200)})`,
      {
        remediation: [
          "Reads (status, validate, analyses) still work",
          "Run writing commands on a writable copy of the workspace",
        ],
        cause: error,
      },
    );
  }
  return null;
}
