/**
 * Extraction use case: run the parse worker for one registered artifact through the
 * broker, check its response against the protocol, stage and publish the generation.
 * Any failure (parse error, over budget, crash, protocol violation) becomes a typed
 * error plus a quarantine record carrying run and adapter provenance; nothing that was
 * already published changes.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { FlameoxError, isFlameoxError, storageFailure, type ErrorCode } from "../domain/errors.ts";
import type { CompanionFile } from "../domain/companion-files.ts";
import { EVIDENCE_TABLE_NAMES, type EvidenceTableName } from "../domain/evidence-schema.ts";
import { newGenerationId, newOperationId } from "../domain/ids.ts";
import {
  checkParseResponse,
  MAX_RESPONSE_BYTES,
  PARSE_PROGRESS_FILE as PROGRESS_FILE,
  PARSE_PROTOCOL,
  type ParseRequest,
  type ParseResponse,
} from "../domain/parse-protocol.ts";
import { buildChildEnvironment } from "../broker/child-environment.ts";
import { runProcess } from "../broker/process-broker.ts";
import { projectCatalog } from "../storage/catalog.ts";
import { nowIso } from "../storage/control-plane.ts";
import { stageGeneration } from "../storage/corpus-publisher.ts";
import { claimStagingDir, recordStagingWorker } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import { artifactPayloadPath } from "../storage/workspace-paths.ts";
import { hexFromArtifactId } from "../domain/ids.ts";
import { parseWorkerArgv } from "./parse-worker-command.ts";
import { recordQuarantine } from "./quarantine.ts";
import { recordDespiteFullDisk } from "./record-despite-full-disk.ts";
import {
  PUBLISH_ATTEMPTS,
  publishWithinLockBudget,
  writeWithinLockBudget,
} from "./publish-within-lock-budget.ts";

type OkResponse = Extract<ParseResponse, { ok: true }>;

export interface ExtractionResult {
  extraction_id: string;
  status: "published";
  generation_id: string;
  corpus_commit_id: string;
  /** Write-lock waits the publication needed (more than one when another writer held the lock). */
  publish_attempts: number;
  adapter: string;
  adapter_version: string;
  artifact_kind: string;
  producer: string | null;
  tables: Record<string, number>;
  limitations: OkResponse["limitations"];
  summary: OkResponse["summary"];
  /** The worker's own figures; `stages_ms` says where its time went (see parse-protocol.ts). */
  worker: {
    wall_ms: number;
    max_rss_bytes: number | null;
    memory_cap_bytes: number | null;
    encode_threads: number;
    scan_threads: number;
    stages_ms: Record<string, number>;
  };
  /** Staging, validating and publishing the generation after the worker finished. */
  publish_ms: number;
  /**
   * Files the artifact declares beside itself (NVBench sidecars), read by the import only through
   * the fence.
   */
  companions: CompanionFile[];
}

export interface ExtractOptions {
  runId: string;
  artifactId: string;
  registrationId: string;
  displayName: string;
  adapter: string | null;
  /** A companion's declaration context, handed to the adapter with the bytes. */
  context?: Record<string, unknown> | null;
  signal?: AbortSignal;
  /** Stored bytes the parse worker has consumed, of the payload's total, while it runs. */
  onProgress?: (done: number, total: number) => void;
}

export async function extractArtifact(
  ws: Workspace,
  options: ExtractOptions,
): Promise<ExtractionResult> {
  const extractionId = newOperationId();
  const generationId = newGenerationId();
  const stagingDir = claimStagingDir(ws.paths, extractionId);
  const outputDir = join(stagingDir, "out");
  await mkdir(outputDir, { recursive: true });
  ws.control.withWriteLock(() => {
    ws.control.db
      .query(
        "INSERT INTO extractions (extraction_id, run_id, artifact_id, adapter, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
      )
      .run(extractionId, options.runId, options.artifactId, options.adapter, nowIso());
    ws.runs.update(options.runId, { extraction_status: "running" });
  });
  let adapterName = options.adapter;
  try {
    const { response, worker } = await runWorker(ws, options, {
      extractionId,
      generationId,
      outputDir,
    });
    adapterName = response.adapter;
    const publishStarted = performance.now();
    const staged = await stageGeneration(ws, {
      generationId,
      stagingDir,
      files: response.tables.map((t) => ({
        table: t.table as EvidenceTableName,
        part: t.part,
        stagedPath: join(outputDir, t.file),
        rows: t.rows,
        schemaId: t.schema_id,
      })),
      extractor: { name: response.adapter, version: response.adapter_version },
      runIds: [options.runId],
      artifactIds: [options.artifactId],
      limitations: response.limitations,
      summary: {
        ...response.summary,
        producer: response.producer,
        compression: response.compression,
      },
    });
    const { commit, attempts } = publishWithinLockBudget(ws, staged, (commit) => {
      projectCatalog(ws.control.db, commit);
      ws.control.db
        .query(
          `UPDATE extractions SET status = 'published', adapter = ?, adapter_version = ?, generation_id = ?, limitations_json = ?,
             summary_json = ?, finished_at = ? WHERE extraction_id = ?`,
        )
        .run(
          response.adapter,
          response.adapter_version,
          generationId,
          JSON.stringify(response.limitations),
          JSON.stringify(response.summary),
          nowIso(),
          extractionId,
        );
      ws.artifacts.refineRegistration(options.registrationId, {
        kind: response.artifact_kind,
        media_type: response.media_type,
        producer: response.producer,
        producer_version: response.producer_version,
      });
      ws.runs.update(options.runId, {
        extraction_status: "published",
        limitations: response.limitations,
      });
    });
    return {
      extraction_id: extractionId,
      status: "published",
      generation_id: generationId,
      corpus_commit_id: commit.commit_id,
      publish_attempts: attempts,
      adapter: response.adapter,
      adapter_version: response.adapter_version,
      artifact_kind: response.artifact_kind,
      producer: response.producer,
      tables: rowsPerTable(response.tables),
      limitations: response.limitations,
      summary: response.summary,
      worker,
      publish_ms: Math.round(performance.now() - publishStarted),
      companions: response.companions ?? [],
    };
  } catch (error) {
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
      const message = `Cannot publish the evidence of ${options.displayName}: the workspace write lock stayed busy for ${PUBLISH_ATTEMPTS} waits of ${ws.config.storage.write_lock_timeout_ms} ms`;
      writeWithinLockBudget(ws, () => {
        ws.control.db
          .query(
            "UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ? WHERE extraction_id = ?",
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
          "Import the artifact again once the other writer has finished (its bytes are already in the store)",
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
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
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
        "UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ? WHERE extraction_id = ?",
      )
      .run(error, nowIso(), extractionId);
    ws.runs.update(runId, {
      extraction_status: "failed",
      error: { code: failure.code, message: failure.message },
      releaseLease: true,
    });
  });
}

async function runWorker(
  ws: Workspace,
  options: ExtractOptions,
  ids: { extractionId: string; generationId: string; outputDir: string },
): Promise<{ response: OkResponse; worker: ExtractionResult["worker"] }> {
  const limits = ws.config.extraction;
  const request: ParseRequest = {
    protocol: PARSE_PROTOCOL,
    operation_id: ids.extractionId,
    payload_path: artifactPayloadPath(ws.paths, hexFromArtifactId(options.artifactId)),
    display_name: basename(options.displayName),
    adapter: options.adapter,
    output_dir: ids.outputDir,
    limits: {
      max_events: limits.max_events,
      max_nesting_depth: limits.max_nesting_depth,
      max_args_bytes: 1024,
      max_decompressed_bytes: ws.config.storage.max_decompressed_bytes,
      memory_bytes: limits.worker_memory_bytes,
      scan_threads: limits.scan_threads,
    },
    provenance: {
      run_id: options.runId,
      artifact_id: options.artifactId,
      generation_id: ids.generationId,
    },
    ...(options.context ? { context: options.context } : {}),
  };
  const requestPath = join(ids.outputDir, "..", "request.json");
  await writeFile(requestPath, JSON.stringify(request));
  const stopProgress = watchWorkerProgress(ids.outputDir, request.payload_path, options.onProgress);
  const result = await runProcess({
    argv: parseWorkerArgv(requestPath),
    cwd: ids.outputDir,
    // The worker arms a parent-death signal against this pid (workers/owner-death.ts).
    env: buildChildEnvironment(process.env, ["PATH", "HOME", "TMPDIR", "LANG"], {
      NO_COLOR: "1",
      FLAMEOX_OWNER_PID: String(process.pid),
    }),
    deadlineAt: Date.now() + limits.worker_timeout_seconds * 1000,
    memoryCapBytes: limits.worker_memory_bytes,
    maxOutputBytes: 64 * 1024,
    signal: options.signal,
    onSpawn: (child) => recordStagingWorker(join(ids.outputDir, ".."), child),
  }).finally(stopProgress);
  const worker = {
    wall_ms: Math.round(result.wallMs),
    max_rss_bytes: result.maxRssBytes,
    memory_cap_bytes: result.memoryCapApplied ? limits.worker_memory_bytes : null,
    encode_threads: 0,
    scan_threads: 0,
    stages_ms: {},
  };
  const term = result.termination;
  if (term.kind === "cancelled")
    throw new FlameoxError(
      "PROCESS_CANCELLED",
      "Extraction cancelled; the parse worker was stopped",
    );
  if (term.kind === "timeout") {
    throw new FlameoxError(
      "PROCESS_TIMEOUT",
      `Cannot extract ${options.displayName}: the parse worker exceeded its ${limits.worker_timeout_seconds} s deadline`,
    );
  }
  const responsePath = join(ids.outputDir, "response.json");
  if (term.kind !== "exited" || term.exitCode !== 0 || !existsSync(responsePath)) {
    // A worker that could not write its output or its response reports why on stderr.
    const storage = storageFailure(result.stderr);
    if (storage?.code === "STORAGE_FULL") throw storage;
    const oom =
      result.memoryCapExceeded ||
      /out of memory|allocation failed|RangeError: Out of memory/i.test(result.stderr);
    const how =
      term.kind === "exited"
        ? `exit code ${term.exitCode}`
        : term.kind === "signaled"
          ? `signal ${term.signal}`
          : `a ${term.metric} policy stop`;
    throw new FlameoxError(
      oom ? "ARTIFACT_TOO_LARGE" : "ARTIFACT_PARSE_FAILED",
      oom
        ? `Cannot extract ${options.displayName}: the parse worker ran out of its ${limits.worker_memory_bytes}-byte memory cap`
        : `Cannot extract ${options.displayName}: the parse worker stopped with ${how}`,
    );
  }
  const size = (await stat(responsePath)).size;
  if (size > MAX_RESPONSE_BYTES)
    throw new FlameoxError(
      "ARTIFACT_PARSE_FAILED",
      "The parse worker's response exceeds the protocol size limit",
    );
  const checked = checkParseResponse(await Bun.file(responsePath).json());
  if ("problem" in checked)
    throw new FlameoxError(
      "ARTIFACT_PARSE_FAILED",
      `The parse worker broke the protocol: ${checked.problem}`,
    );
  const parsed = checked.response;
  if (!parsed.ok) throw new FlameoxError(parsed.error.code, parsed.error.message);
  for (const t of parsed.tables) {
    if (
      !(EVIDENCE_TABLE_NAMES as readonly string[]).includes(t.table) ||
      t.file !== `${t.table}.${t.part}.parquet`
    ) {
      throw new FlameoxError(
        "ARTIFACT_PARSE_FAILED",
        `The parse worker broke the protocol: unexpected table file ${JSON.stringify(t.file)}`,
      );
    }
    const file = await stat(join(ids.outputDir, t.file)).catch(() => null);
    if (!file?.isFile())
      throw new FlameoxError("ARTIFACT_PARSE_FAILED", `The parse worker did not write ${t.file}`);
    if (file.size > limits.max_worker_output_bytes)
      throw new FlameoxError(
        "ARTIFACT_TOO_LARGE",
        `The parse worker's ${t.file} exceeds the output budget`,
      );
  }
  // The worker's self-measured peak is exact for the parse process; the broker's figure is a
  // fallback.
  return {
    response: parsed,
    worker: {
      ...worker,
      max_rss_bytes: parsed.peak_rss_bytes || worker.max_rss_bytes,
      encode_threads: parsed.encode_threads,
      scan_threads: parsed.scan_threads ?? 0,
      stages_ms: parsed.stages_ms ?? {},
    },
  };
}

/**
 * Polls the worker's progress file (workers/progress-file.ts) while it runs; returns the stop
 * function.
 */
function watchWorkerProgress(
  outputDir: string,
  payloadPath: string,
  onProgress: ExtractOptions["onProgress"],
): () => void {
  if (!onProgress) return () => {};
  const total = statSync(payloadPath).size;
  const path = join(outputDir, PROGRESS_FILE);
  let last = -1;
  const timer = setInterval(() => {
    let done: number;
    try {
      done = Number.parseInt(readFileSync(path, "latin1"), 10);
    } catch {
      return;
    }
    if (Number.isFinite(done) && done !== last) {
      last = done;
      onProgress(Math.min(done, total), total);
    }
  }, 150);
  return () => clearInterval(timer);
}

function remediationFor(code: ErrorCode): string[] {
  switch (code) {
    case "ARTIFACT_PARSE_FAILED":
      return [
        "Check that the file is a complete artifact of a supported format (V8 .cpuprofile, Chrome trace JSON)",
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

/** Rows per table over a response's parts. */
function rowsPerTable(parts: readonly { table: string; rows: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of parts) out[t.table] = (out[t.table] ?? 0) + t.rows;
  return out;
}
