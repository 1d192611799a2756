/**
 * One run of the parse worker for an extraction: the request it reads, the process the
 * broker starts under the workspace's limits, and the response checked against the
 * protocol (every table file named, present and within the output budget). Any other
 * outcome (cancelled, timed out, out of memory, crashed, off protocol) is a typed error.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { buildChildEnvironment } from "../broker/child-environment.ts";
import { type ProcessResult, runProcess } from "../broker/process-broker.ts";
import { FlameoxError, storageFailure } from "../domain/errors.ts";
import { EVIDENCE_TABLE_NAMES } from "../domain/evidence-schema.ts";
import { hexFromArtifactId } from "../domain/ids.ts";
import {
  checkParseResponse,
  MAX_RESPONSE_BYTES,
  PARSE_PROGRESS_FILE as PROGRESS_FILE,
  PARSE_PROTOCOL,
  type ParseRequest,
  type ParseResponse,
} from "../domain/parse-protocol.ts";
import { REQUEST_ON_STDIN } from "../domain/parse-request.ts";
import { recordStagingWorker } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import { artifactPayloadPath } from "../storage/workspace-paths.ts";
import type { ExtractTarget } from "./extract-artifact.ts";
import { parseWorkerArgv } from "./parse-worker-command.ts";
import { workerAllocatorEnv } from "./worker-allocator.ts";
import { workerCompilerEnv } from "./worker-compiler.ts";

export type ParsedResponse = Extract<ParseResponse, { ok: true }>;

/** The worker's own figures; `stages_ms` says where its time went (see parse-protocol.ts). */
export interface WorkerFigures {
  wall_ms: number;
  max_rss_bytes: number | null;
  memory_cap_bytes: number | null;
  encode_threads: number;
  scan_threads: number;
  nest_threads: number;
  stages_ms: Record<string, number>;
}

/**
 * The bytes the worker parses: a registered artifact's stored payload, or a payload still
 * landing in staging (its id comes later, through `landedFile`; see workers/payload-landing.ts).
 */
export type WorkerPayload =
  | { artifactId: string }
  | { stagedPath: string; bytes: number; landedFile: string };

/**
 * A parse worker started before its request is known (startParseWorker): it loads its modules
 * while the caller registers the artifact, then reads the request from its stdin.
 */
export interface StartedWorker {
  /** Hands the worker its request (once). */
  send(request: ParseRequest): void;
  /** Stops the worker, sent its request or not; its result then says it was cancelled. */
  stop(): void;
  readonly result: Promise<ProcessResult>;
}

/**
 * Starts a parse worker under the workspace's limits, its output in `outputDir` (an extraction's
 * staging `out`, recorded as the staging's worker), its request to come (`send`). Starting it
 * before the artifact is registered hides its start-up, ~100 ms of runtime and modules, behind
 * the registration's. `payloadBytes` sets the allocator (worker-allocator.ts); the deadline runs
 * from now.
 */
export function startParseWorker(
  ws: Workspace,
  outputDir: string,
  payloadBytes: number,
  signal?: AbortSignal,
): StartedWorker {
  const limits = ws.config.extraction;
  const stop = new AbortController();
  let send!: (bytes: Uint8Array) => void;
  let refuse!: (reason: Error) => void;
  const stdin = new Promise<Uint8Array>((resolve, reject) => {
    send = resolve;
    refuse = reject;
  });
  const result = runProcess({
    argv: parseWorkerArgv(REQUEST_ON_STDIN),
    cwd: outputDir,
    // The worker arms a parent-death signal against this pid (workers/owner-death.ts).
    env: buildChildEnvironment(process.env, ["PATH", "HOME", "TMPDIR", "LANG"], {
      NO_COLOR: "1",
      FLAMEOX_OWNER_PID: String(process.pid),
      ...workerAllocatorEnv(payloadBytes, limits.worker_memory_bytes),
      ...workerCompilerEnv(),
    }),
    deadlineAt: Date.now() + limits.worker_timeout_seconds * 1000,
    memoryCapBytes: limits.worker_memory_bytes,
    maxOutputBytes: 64 * 1024,
    signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    stdin,
    onSpawn: (child) => recordStagingWorker(join(outputDir, ".."), child),
  });
  // Awaited later (after the copy has begun, or by abandonEarlyExtraction): a spawn that fails, or
  // a request refused to a worker that never started, is not an unhandled rejection meanwhile.
  result.catch(() => {});
  stdin.catch(() => {});
  return {
    send: (request) => send(new TextEncoder().encode(JSON.stringify(request))),
    stop: () => {
      refuse(new Error("the parse worker was stopped before its request"));
      stop.abort();
    },
    result,
  };
}

/**
 * Runs the extraction's parse worker: `started`, one already started for it, else a new one.
 * `options.signal` is for a new one (a started one was given its own).
 */
export async function runExtractionWorker(
  ws: Workspace,
  options: ExtractTarget,
  payload: WorkerPayload,
  ids: { extractionId: string; generationId: string; outputDir: string },
  started?: StartedWorker,
): Promise<{ response: ParsedResponse; worker: WorkerFigures }> {
  const limits = ws.config.extraction;
  const landing = "stagedPath" in payload ? payload : null;
  const payloadPath =
    "stagedPath" in payload
      ? payload.stagedPath
      : artifactPayloadPath(ws.paths, hexFromArtifactId(payload.artifactId));
  const request: ParseRequest = {
    protocol: PARSE_PROTOCOL,
    operation_id: ids.extractionId,
    payload_path: payloadPath,
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
      nest_thread: limits.nest_thread,
    },
    provenance: {
      run_id: options.runId,
      ...("artifactId" in payload ? { artifact_id: payload.artifactId } : {}),
      generation_id: ids.generationId,
    },
    ...(landing
      ? { landing: { payload_bytes: landing.bytes, landed_file: landing.landedFile } }
      : {}),
    ...(options.context ? { context: options.context } : {}),
  };
  // A stored payload is immutable and a landing one's size is known: one figure serves the
  // progress and the allocator's settings.
  const payloadBytes = landing ? landing.bytes : statSync(payloadPath).size;
  const running = started ?? startParseWorker(ws, ids.outputDir, payloadBytes, options.signal);
  running.send(request);
  const stopProgress = watchWorkerProgress(ids.outputDir, payloadBytes, options.onProgress);
  const result = await running.result.finally(stopProgress);
  const worker = {
    wall_ms: Math.round(result.wallMs),
    max_rss_bytes: result.maxRssBytes,
    memory_cap_bytes: result.memoryCapApplied ? limits.worker_memory_bytes : null,
    encode_threads: 0,
    scan_threads: 0,
    nest_threads: 0,
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
      `Cannot extract ${options.displayName}: the parse worker exceeded ` +
        `its ${limits.worker_timeout_seconds} s deadline`,
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
        ? `Cannot extract ${options.displayName}: the parse worker ran out of ` +
            `its ${limits.worker_memory_bytes}-byte memory cap`
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
      nest_threads: parsed.nest_threads ?? 0,
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
  total: number,
  onProgress: ExtractTarget["onProgress"],
): () => void {
  if (!onProgress) return () => {};
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
