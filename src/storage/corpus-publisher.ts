/**
 * Publishes one staged generation into the corpus, in the order that keeps HEAD at a
 * complete commit whatever step a crash interrupts:
 *
 *   staged parquet → hash → staged manifest → (write lock) recheck HEAD → move evidence
 *   → move manifest → write commit → fsync → atomic rename of HEAD → catalog and run
 *   projections (same SQLite transaction, committed last).
 *
 * Files moved before HEAD changes are unreachable orphans until then; `validate` reports
 * them and never mistakes them for evidence.
 */
import { mkdirSync, renameSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import type { Limitation } from "../domain/evidence-status.ts";
import { FlameoxError } from "../domain/errors.ts";
import { nowIso } from "./control-plane.ts";
import {
  CORPUS_SCHEMA_VERSION,
  type CommitEntry,
  type CorpusCommit,
  type GenerationManifest,
} from "./corpus-records.ts";
import { buildCommit, readCommit, readHeadId, writeCommit, writeHead } from "./corpus-store.ts";
import { fsyncDirectory, sha256Hex } from "./durable-file.ts";
import { faultPoint } from "./fault-injection.ts";
import { recordHead } from "./head-log.ts";
import type { Workspace } from "./workspace.ts";
import { evidencePartPath, generationManifestPath } from "./workspace-paths.ts";
import { FLAMEOX_VERSION } from "../domain/version.ts";

export interface StagedTableFile {
  table: EvidenceTableName;
  part: number;
  stagedPath: string;
  rows: number;
  schemaId: string;
}

export interface GenerationInput {
  generationId: string;
  stagingDir: string;
  files: StagedTableFile[];
  extractor: { name: string; version: string };
  runIds: string[];
  artifactIds: string[];
  limitations: Limitation[];
  summary: Record<string, unknown>;
}

export interface StagedGeneration {
  input: GenerationInput;
  manifest: GenerationManifest;
  manifestText: string;
  manifestStagedPath: string;
}

/** Hashes the staged files and writes the manifest into staging. Takes no lock. */
export async function stageGeneration(
  ws: Workspace,
  input: GenerationInput,
): Promise<StagedGeneration> {
  faultPoint("staged_parquet");
  const files = [];
  for (const file of input.files) {
    const hasher = new Bun.CryptoHasher("sha256");
    const blob = Bun.file(file.stagedPath);
    for await (const chunk of blob.stream()) hasher.update(chunk);
    files.push({
      table: file.table,
      path: relative(
        ws.paths.diagnostics,
        evidencePartPath(ws.paths, file.table, input.generationId, file.part),
      ),
      sha256: hasher.digest("hex"),
      bytes: blob.size,
      rows: file.rows,
      schema_id: file.schemaId,
    });
  }
  const manifest: GenerationManifest = {
    schema_version: CORPUS_SCHEMA_VERSION,
    generation_id: input.generationId,
    created_at: nowIso(),
    extractor: input.extractor,
    publisher: { name: "flameox", version: FLAMEOX_VERSION },
    inputs: {
      run_ids: input.runIds,
      artifact_ids: input.artifactIds,
      base_commit_id: readHeadId(ws.paths),
    },
    files,
    limitations: input.limitations,
    summary: input.summary,
  };
  const manifestText = JSON.stringify(manifest, null, 2) + "\n";
  const manifestStagedPath = join(input.stagingDir, "manifest.json");
  await mkdir(dirname(manifestStagedPath), { recursive: true });
  await writeFile(manifestStagedPath, manifestText);
  faultPoint("staged_manifest");
  return { input, manifest, manifestText, manifestStagedPath };
}

/**
 * Takes the write lock, appends the generation to a new commit whose parent is the
 * current HEAD, and moves HEAD. `project` runs in the same SQLite transaction after HEAD
 * has moved (catalog, run and extraction status).
 */
export function publishGeneration(
  ws: Workspace,
  staged: StagedGeneration,
  project: (commit: CorpusCommit) => void,
): CorpusCommit {
  const { input, manifest } = staged;
  return ws.control.withWriteLock(() => {
    const parent = readCommit(ws.paths, readHeadId(ws.paths));
    if (parent.generations.some((g) => g.generation_id === input.generationId)) {
      throw new FlameoxError(
        "CORPUS_INTEGRITY_FAILED",
        `Generation ${input.generationId} is already published`,
      );
    }
    for (const file of input.files) {
      const finalPath = evidencePartPath(ws.paths, file.table, input.generationId, file.part);
      mkdirSync(dirname(finalPath), { recursive: true });
      renameSync(file.stagedPath, finalPath);
      fsyncDirectory(dirname(finalPath));
    }
    faultPoint("moved_evidence");
    const manifestPath = generationManifestPath(ws.paths, input.generationId);
    renameSync(staged.manifestStagedPath, manifestPath);
    fsyncDirectory(dirname(manifestPath));
    faultPoint("moved_manifest");
    const entry: CommitEntry = {
      generation_id: input.generationId,
      manifest_sha256: sha256Hex(staged.manifestText),
      run_ids: input.runIds,
      artifact_ids: input.artifactIds,
      extractor: `${manifest.extractor.name}@${manifest.extractor.version}`,
      tables: sumRowsByTable(manifest.files),
    };
    const commit = buildCommit(parent, [...parent.generations, entry]);
    writeCommit(ws.paths, commit);
    faultPoint("written_commit");
    faultPoint("pre_head");
    writeHead(ws.paths, commit.commit_id);
    faultPoint("post_head");
    recordHead(ws.control.db, commit);
    project(commit);
    return commit;
  });
}

function sumRowsByTable(
  files: { table: EvidenceTableName; rows: number }[],
): Partial<Record<EvidenceTableName, number>> {
  const rows: Partial<Record<EvidenceTableName, number>> = {};
  for (const f of files) rows[f.table] = (rows[f.table] ?? 0) + f.rows;
  return rows;
}
