/**
 * Import use case: every import is a new run (`run_type: import`). The file is registered
 * to the run through the shared registration path (streamed into staging while hashed,
 * published into the content-addressed store, claimed under a short write lock) and
 * extracted by a parse worker outside the lock, which starts before the copy, is sent its
 * request as the copy begins, and follows it (extract-artifact.ts, extractLanding).
 */
import { lstat, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { FlameoxError, storageFailure } from "../domain/errors.ts";
import { newOperationId, newRegistrationId, newRunId } from "../domain/ids.ts";
import { openArtifactSource, startStagingCopy } from "../storage/cas.ts";
import { ensureSpaceReserve } from "../storage/space-reserve.ts";
import { claimStagingDir } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import {
  abandonEarlyExtraction,
  beginEarlyExtraction,
  type EarlyExtraction,
  type ExtractionResult,
  extractLanding,
} from "./extract-artifact.ts";
import { nextStepAfterImport, type NextStep } from "./import-next-step.ts";
import type { ImportOptions } from "./import-request.ts";
import { recordDespiteFullDisk } from "./record-despite-full-disk.ts";
import { type RegistrationMeta, registerStaged } from "./register-artifact.ts";

/** The file, and what the caller says about it (validated options, see import-request.ts). */
export type ImportRequest = ImportOptions & {
  path: string;
  displayName?: string;
  signal?: AbortSignal;
  onProgress?: (phase: string, done: number, total: number) => void;
};

export interface ImportResult extends NextStep {
  run_id: string;
  artifact_id: string;
  registration_id: string;
  byte_length: number;
  deduplicated: boolean;
  /** Copying, hashing and registering the file (ms). */
  registration_ms: number;
  extraction: ExtractionResult;
}

function registrationMeta(
  runId: string,
  displayName: string,
  request: ImportRequest,
): RegistrationMeta {
  return {
    runId,
    displayName,
    kind: request.kind ?? "unknown",
    mediaType: request.media_type ?? "application/octet-stream",
    role: "input",
    producer: request.producer ?? null,
    producerVersion: request.producer_version ?? null,
    sensitivity: request.sensitivity ?? "normal",
  };
}

/**
 * The extraction begun now, before the run is recorded and the file copied, when the path names a
 * regular file the store may take. Otherwise, or if it cannot begin (a full disk), none: the
 * import then starts its worker, or fails and records why, where it did before.
 */
async function earlyExtraction(
  ws: Workspace,
  request: ImportRequest,
): Promise<EarlyExtraction | null> {
  if (request.signal?.aborted) return null;
  // As openArtifactSource will see it: a link is refused there, so no worker for one.
  const file = await lstat(request.path).catch(() => null);
  if (!file?.isFile() || file.size > ws.config.storage.max_artifact_bytes) return null;
  return beginEarlyExtraction(ws, file.size, request.signal).catch(() => null);
}

/** An unknown adapter name is the caller's mistake: refused before anything is recorded. */
async function checkAdapterName(name: string): Promise<void> {
  // Loaded only when an adapter is named; the entries are the formats' descriptions, not their
  // parsers.
  const { ADAPTER_ENTRIES } = await import("../adapters/adapter-entries.ts");
  if (ADAPTER_ENTRIES.some((a) => a.name === name)) return;
  const { formatsSentence } = await import("../adapters/known-formats.ts");
  throw new FlameoxError(
    "INVALID_ARGUMENTS",
    `Unknown adapter ${JSON.stringify(name)}. ${formatsSentence(ADAPTER_ENTRIES.map((a) => a.name))}`,
    {
      details: { field: "adapter", valid: ADAPTER_ENTRIES.map((a) => a.name) },
      remediation: [
        "Name one of the importable adapters, or leave the adapter out to detect the format",
      ],
    },
  );
}

export async function importArtifact(ws: Workspace, request: ImportRequest): Promise<ImportResult> {
  if (request.adapter !== undefined && request.adapter !== null)
    await checkAdapterName(request.adapter);
  const runId = newRunId();
  const operationId = newOperationId();
  const stagingDir = join(ws.paths.staging, operationId);
  ensureSpaceReserve(ws.paths);
  // The parse worker starts first, its request sent once the copy has begun (extractLanding).
  let early = await earlyExtraction(ws, request);
  try {
    ws.control.withWriteLock(() =>
      ws.runs.create(runId, "import", { capture_status: "running", extraction_status: "pending" }),
    );
  } catch (error) {
    if (early) await abandonEarlyExtraction(early);
    throw error;
  }
  try {
    claimStagingDir(ws.paths, operationId);
    const displayName = request.displayName ?? basename(request.path);
    const registrationStarted = performance.now();
    const source = await openArtifactSource(request.path, ws.config.storage.max_artifact_bytes);
    const stagedPath = join(stagingDir, `payload-${newRegistrationId()}`);
    const { staged } = await startStagingCopy(source, stagedPath, {
      maxBytes: ws.config.storage.max_artifact_bytes,
      signal: request.signal,
      onProgress: (done, total) => request.onProgress?.("copying", done, total),
    });
    // The parse worker (started early, or now) is sent its request and follows the copy
    // (extractLanding); the registration completes beside it.
    let landed = false;
    const registration = staged.then(async (payload) => {
      const meta = registrationMeta(runId, displayName, request);
      const registered = await registerStaged(ws, payload, meta, { keepStaged: true });
      const registrationMs = Math.round(performance.now() - registrationStarted);
      ws.control.withWriteLock(() => ws.runs.update(runId, { capture_status: "registered" }));
      landed = true;
      request.onProgress?.("extracting", 0, 1);
      return { ...registered, registrationMs };
    });
    // Awaited by extractLanding, which may first wait on its own staging: a copy that fails
    // meanwhile is not an unhandled rejection.
    registration.catch(() => {});
    const takenOver = early ?? undefined;
    early = null;
    const extraction = await extractLanding(
      ws,
      {
        runId,
        displayName,
        adapter: request.adapter ?? null,
        signal: request.signal,
        // The worker's progress is reported once the copy's is done.
        onProgress: request.onProgress
          ? (done, total) => {
              if (landed) request.onProgress?.("extracting", done, total);
            }
          : undefined,
      },
      { stagedPath, bytes: source.opened.size, registered: registration },
      takenOver,
    );
    // Settled: the extraction is recorded only once the artifact is registered.
    const registered = await registration;
    const { artifact_id: artifactId, registration_id: registrationId, deduplicated } = registered;
    request.onProgress?.("completed", 1, 1);
    return {
      run_id: runId,
      artifact_id: artifactId,
      registration_id: registrationId,
      byte_length: registered.byte_length,
      deduplicated,
      registration_ms: registered.registrationMs,
      extraction,
      ...nextStepAfterImport(runId, artifactId, extraction.tables),
    };
  } catch (error) {
    // Not taken over: the copy never started.
    if (early) await abandonEarlyExtraction(early);
    if (error instanceof FlameoxError && error.runId) throw error;
    const failure =
      storageFailure(error) ??
      (error instanceof FlameoxError
        ? error
        : new FlameoxError(
            "INTERNAL_ERROR",
            `Cannot import ${request.path}: ${(error as Error).message}`,
          ));
    const cancelled = failure.code === "PROCESS_CANCELLED";
    // Staging goes first: on a full disk its bytes are what lets the run be closed.
    await rm(stagingDir, { recursive: true, force: true });
    recordDespiteFullDisk(ws, () =>
      ws.runs.update(runId, {
        capture_status: cancelled ? "cancelled" : "failed",
        // Extraction never started: the run must not stay open on its account.
        extraction_status: "not_requested",
        error: { code: failure.code, message: failure.message },
        releaseLease: true,
      }),
    );
    throw new FlameoxError(failure.code, failure.message, {
      runId,
      remediation: failure.remediation,
      details: failure.details,
    });
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
