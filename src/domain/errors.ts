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
  // Workloads, plans and capture (issue 4).
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
  // Experiments, run sets and comparisons (issue 5).
  RECORD_NOT_FOUND: { exit: 2, retryable: false },
  COMPARISON_INVALID: { exit: 6, retryable: false },
  EXPERIMENT_INVALID: { exit: 2, retryable: false },
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
    options: { remediation?: string[]; details?: Record<string, unknown>; runId?: string; cause?: unknown } = {},
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

/** Wraps anything thrown into a FlameoxError; unknown defects become INTERNAL_ERROR without a stack. */
export function asFlameoxError(error: unknown): FlameoxError {
  if (error instanceof FlameoxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new FlameoxError("INTERNAL_ERROR", `Unexpected internal failure: ${message}`, {
    remediation: ["Run `flameox validate` to confirm the workspace is intact", "Report the failure with the command that caused it"],
    cause: error,
  });
}

export function isFlameoxError(error: unknown, code?: ErrorCode): error is FlameoxError {
  return error instanceof FlameoxError && (code === undefined || error.code === code);
}
