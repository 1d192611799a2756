/**
 * Extraction use case: run the parse worker for one registered artifact through the
 * broker, check its response against the protocol (parse-worker-run.ts), stage and publish
 * the generation. Any failure (parse error, over budget, crash, protocol violation) becomes
 * a typed error plus a quarantine record carrying run and adapter provenance
 * (extraction-failure.ts); nothing that was already published changes.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CompanionFile } from "../domain/companion-files.ts";
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import { newGenerationId, newOperationId } from "../domain/ids.ts";
import { projectCatalog } from "../storage/catalog.ts";
import { nowIso } from "../storage/control-plane.ts";
import { stageGeneration } from "../storage/corpus-publisher.ts";
import { claimStagingDir } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import { failExtraction } from "./extraction-failure.ts";
import {
  runExtractionWorker,
  startParseWorker,
  type ParsedResponse,
  type StartedWorker,
  type WorkerFigures,
} from "./parse-worker-run.ts";
import { publishWithinLockBudget } from "./publish-within-lock-budget.ts";
import type { RegisteredArtifact } from "./register-artifact.ts";

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
  limitations: ParsedResponse["limitations"];
  summary: ParsedResponse["summary"];
  /** The worker's own figures; `stages_ms` says where its time went (see parse-protocol.ts). */
  worker: WorkerFigures;
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

/** What an extraction is told before its artifact is registered (see extractLanding). */
export type ExtractTarget = Omit<ExtractOptions, "artifactId" | "registrationId">;

/** A payload still being copied into staging when its extraction starts. */
export interface PayloadLanding {
  stagedPath: string;
  /** Its size once landed. */
  bytes: number;
  /** Resolves once the copy is hashed, published and registered; rejects if it is refused. */
  registered: Promise<RegisteredArtifact>;
}

/** Extracts a registered artifact from the store. */
export async function extractArtifact(
  ws: Workspace,
  options: ExtractOptions,
): Promise<ExtractionResult> {
  const attempt = await beginExtraction(ws);
  recordExtractionStart(ws, options, attempt.extractionId);
  const running = runExtractionWorker(ws, options, options, attempt);
  return await finishExtraction(ws, options, attempt, running);
}

/**
 * An extraction begun before its artifact is known: its staging claimed and its parse worker
 * started (see beginEarlyExtraction); extractLanding takes it over.
 */
export interface EarlyExtraction {
  attempt: ExtractionAttempt;
  worker: StartedWorker;
}

/**
 * Claims an extraction's staging and starts its parse worker now, before the artifact is copied
 * and registered: the worker's start-up (runtime and modules, ~100 ms) runs beside the
 * registration's instead of after it. `payloadBytes` is the file's size as last seen.
 */
export async function beginEarlyExtraction(
  ws: Workspace,
  payloadBytes: number,
  signal?: AbortSignal,
): Promise<EarlyExtraction> {
  const attempt = await beginExtraction(ws);
  try {
    return { attempt, worker: startParseWorker(ws, attempt.outputDir, payloadBytes, signal) };
  } catch (error) {
    await rm(attempt.stagingDir, { recursive: true, force: true });
    throw error;
  }
}

/** Stops an early extraction that will not be taken over, and removes its staging. */
export async function abandonEarlyExtraction(early: EarlyExtraction): Promise<void> {
  early.worker.stop();
  await early.worker.result.catch(() => {});
  await rm(early.attempt.stagingDir, { recursive: true, force: true });
}

/**
 * Extracts a payload while it is still landing: the parse worker (`early`'s, else one started
 * now) follows the copy, so a large import pays for its copy and hash once instead of before the
 * parse. The extraction is recorded once the artifact is registered; a copy that fails stops the
 * worker, and the registration's error is the import's.
 */
export async function extractLanding(
  ws: Workspace,
  target: ExtractTarget,
  landing: PayloadLanding,
  early?: EarlyExtraction,
): Promise<ExtractionResult> {
  // The copy goes on whatever happens here: it settles before the caller hears of a failure.
  const attempt =
    early?.attempt ??
    (await beginExtraction(ws).catch(async (error) => {
      await landing.registered.catch(() => {});
      throw error;
    }));
  const landedFile = join(attempt.stagingDir, "landed.json");
  let worker: StartedWorker;
  try {
    worker = early?.worker ?? startParseWorker(ws, attempt.outputDir, landing.bytes, target.signal);
  } catch (error) {
    await landing.registered.catch(() => {});
    await rm(attempt.stagingDir, { recursive: true, force: true });
    throw error;
  }
  const running = runExtractionWorker(
    ws,
    target,
    { stagedPath: landing.stagedPath, bytes: landing.bytes, landedFile },
    attempt,
    worker,
  );
  // Settled below, or dropped when the copy fails.
  running.catch(() => {});
  let options: ExtractOptions;
  try {
    const registered = await landing.registered;
    options = {
      ...target,
      artifactId: registered.artifact_id,
      registrationId: registered.registration_id,
    };
    recordExtractionStart(ws, options, attempt.extractionId);
  } catch (error) {
    worker.stop();
    await running.catch(() => {});
    await rm(attempt.stagingDir, { recursive: true, force: true });
    throw error;
  }
  // Whole or not at all: the worker reads it as soon as the name exists. A failure to write it
  // (a full disk) fails the extraction like any other.
  const landed = JSON.stringify({ artifact_id: options.artifactId, byte_length: landing.bytes });
  const announced = writeFile(`${landedFile}.tmp`, landed)
    .then(() => rename(`${landedFile}.tmp`, landedFile))
    .catch((error) => {
      worker.stop();
      throw error;
    });
  return await finishExtraction(
    ws,
    options,
    attempt,
    announced.then(() => running),
  );
}

interface ExtractionAttempt {
  extractionId: string;
  generationId: string;
  stagingDir: string;
  outputDir: string;
}

async function beginExtraction(ws: Workspace): Promise<ExtractionAttempt> {
  const extractionId = newOperationId();
  const generationId = newGenerationId();
  const stagingDir = claimStagingDir(ws.paths, extractionId);
  const outputDir = join(stagingDir, "out");
  await mkdir(outputDir, { recursive: true });
  return { extractionId, generationId, stagingDir, outputDir };
}

function recordExtractionStart(ws: Workspace, options: ExtractOptions, extractionId: string): void {
  ws.control.withWriteLock(() => {
    ws.control.db
      .query(
        "INSERT INTO extractions (extraction_id, run_id, artifact_id, adapter, status, " +
          "started_at) VALUES (?, ?, ?, ?, 'running', ?)",
      )
      .run(extractionId, options.runId, options.artifactId, options.adapter, nowIso());
    ws.runs.update(options.runId, { extraction_status: "running" });
  });
}

/** Awaits the worker, then stages and publishes its generation, or records its failure. */
async function finishExtraction(
  ws: Workspace,
  options: ExtractOptions,
  attempt: ExtractionAttempt,
  running: ReturnType<typeof runExtractionWorker>,
): Promise<ExtractionResult> {
  const { extractionId, generationId, stagingDir, outputDir } = attempt;
  let adapterName = options.adapter;
  try {
    const { response, worker } = await running;
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
          `UPDATE extractions SET status = 'published', adapter = ?, adapter_version = ?,
             generation_id = ?, limitations_json = ?, summary_json = ?, finished_at = ?
             WHERE extraction_id = ?`,
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
    return await failExtraction(ws, options, { extractionId, stagingDir, adapterName }, error);
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}

/** Rows per table over a response's parts. */
function rowsPerTable(parts: readonly { table: string; rows: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of parts) out[t.table] = (out[t.table] ?? 0) + t.rows;
  return out;
}
