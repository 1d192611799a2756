/**
 * How a failed extraction closes. A full disk or a busy write lock is not the artifact's
 * fault: the run closes failed with the typed error and nothing is quarantined. Anything
 * else (parse error, over budget, crash, protocol violation, cancellation) leaves a
 * quarantine record carrying run and adapter provenance. Nothing already published changes.
 */
import { rm } from "node:fs/promises";
import { FlameoxError, isFlameoxError, storageFailure, type ErrorCode } from "../domain/errors.ts";
import { nowIso } from "../storage/control-plane.ts";
import type { Workspace } from "../storage/workspace.ts";
import type { ExtractOptions } from "./extract-artifact.ts";
import { PUBLISH_ATTEMPTS, writeWithinLockBudget } from "./publish-within-lock-budget.ts";
import { recordQuarantine } from "./quarantine.ts";
import { recordDespiteFullDisk } from "./record-despite-full-disk.ts";

/**
 * Records the failure of extraction `extractionId` and throws the error the caller reports:
 * the run's, with remediation and the artifact, extraction and adapter named.
 */
export async function failExtraction(
  ws: Workspace,
  options: ExtractOptions,
  attempt: { extractionId: string; stagingDir: string; adapterName: string | null },
  error: unknown,
): Promise<never> {
  const { extractionId, stagingDir, adapterName } = attempt;
  const storage = storageFailure(error);
  if (storage) {
    // Not the artifact's fault: no quarantine record, the run closes with the typed error.
    await rm(stagingDir, { recursive: true, force: true });
    recordStorageFailure(ws, options.runId, extractionId, storage);
    throw new FlameoxError(storage.code, storage.message, {
      runId: options.runId,
      remediation: storage.remediation,
      details: {
        artifact_id: options.artifactId,
        extraction_id: extractionId,
        adapter: adapterName,
      },
    });
  }
  if (isFlameoxError(error, "WRITE_LOCK_TIMEOUT")) {
    // Not the artifact's fault either: the run closes failed (retryable), no quarantine.
    await rm(stagingDir, { recursive: true, force: true });
    const message =
      `Cannot publish the evidence of ${options.displayName}: the workspace write lock stayed ` +
      `busy for ${PUBLISH_ATTEMPTS} waits of ${ws.config.storage.write_lock_timeout_ms} ms`;
    writeWithinLockBudget(ws, () => {
      ws.control.db
        .query(
          "UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ? WHERE " +
            "extraction_id = ?",
        )
        .run(JSON.stringify({ code: "WRITE_LOCK_TIMEOUT", message }), nowIso(), extractionId);
      ws.runs.update(options.runId, {
        extraction_status: "failed",
        error: { code: "WRITE_LOCK_TIMEOUT", message },
        releaseLease: true,
      });
    });
    throw new FlameoxError("WRITE_LOCK_TIMEOUT", message, {
      runId: options.runId,
      remediation: [
        "Import the artifact again once the other writer has finished (its bytes are already " +
          "in the store)",
      ],
      details: {
        artifact_id: options.artifactId,
        extraction_id: extractionId,
        adapter: adapterName,
      },
    });
  }
  const failure =
    error instanceof FlameoxError
      ? error
      : new FlameoxError(
          "ARTIFACT_PARSE_FAILED",
          `Cannot extract ${options.displayName}: ${(error as Error).message}`,
        );
  const cancelled = failure.code === "PROCESS_CANCELLED";
  await recordQuarantine(ws, {
    extractionId,
    runId: options.runId,
    artifactId: options.artifactId,
    adapter: adapterName,
    code: failure.code,
    message: failure.message,
    status: cancelled ? "cancelled" : "quarantined",
  });
  throw new FlameoxError(failure.code, failure.message, {
    runId: options.runId,
    remediation:
      failure.remediation.length > 0 ? failure.remediation : remediationFor(failure.code),
    details: {
      artifact_id: options.artifactId,
      extraction_id: extractionId,
      adapter: adapterName,
    },
  });
}

function recordStorageFailure(
  ws: Workspace,
  runId: string,
  extractionId: string,
  failure: FlameoxError,
): void {
  const error = JSON.stringify({ code: failure.code, message: failure.message });
  recordDespiteFullDisk(ws, () => {
    ws.control.db
      .query(
        "UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ? WHERE " +
          "extraction_id = ?",
      )
      .run(error, nowIso(), extractionId);
    ws.runs.update(runId, {
      extraction_status: "failed",
      error: { code: failure.code, message: failure.message },
      releaseLease: true,
    });
  });
}

function remediationFor(code: ErrorCode): string[] {
  switch (code) {
    case "ARTIFACT_PARSE_FAILED":
      return [
        "Check that the file is a complete artifact of a supported format (V8 .cpuprofile, " +
          "Chrome trace JSON)",
        "The native artifact is kept; inspect it with `flameox artifacts show`",
      ];
    case "ARTIFACT_FORMAT_UNKNOWN":
      return [
        "If it is one of the importable formats, pass --adapter (MCP: adapter) to name it",
        "Formats known but not imported yet are listed in the message; the native artifact is kept",
      ];
    case "ARTIFACT_TOO_LARGE":
      return [
        "Raise extraction.worker_memory_bytes or extraction.max_events in .diagnostics/config.toml",
      ];
    case "PROCESS_TIMEOUT":
      return ["Raise extraction.worker_timeout_seconds in .diagnostics/config.toml"];
    default:
      return [];
  }
}
