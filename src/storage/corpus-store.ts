/**
 * Reads and writes corpus commits, generation manifests and HEAD. HEAD holds one commit
 * id and is the only publication authority: nothing is visible to readers until HEAD
 * names a commit that lists it.
 */
import { existsSync, readFileSync } from "node:fs";
import { digestOf } from "../domain/canonical-digest.ts";
import { FlameoxError } from "../domain/errors.ts";
import { nowIso } from "./control-plane.ts";
import {
  CORPUS_SCHEMA_VERSION,
  type CommitEntry,
  type CorpusCommit,
  type GenerationManifest,
} from "./corpus-records.ts";
import { sha256Hex, writeFileDurably } from "./durable-file.ts";
import { commitPath, generationManifestPath, type WorkspacePaths } from "./workspace-paths.ts";

export function buildCommit(parent: CorpusCommit | null, generations: CommitEntry[]): CorpusCommit {
  const body = {
    schema_version: CORPUS_SCHEMA_VERSION,
    parent_commit_id: parent?.commit_id ?? null,
    created_at: nowIso(),
    generations,
    inventory_digest: digestOf(generations),
  };
  return { ...body, commit_id: digestOf(body) };
}

export function writeCommit(paths: WorkspacePaths, commit: CorpusCommit): void {
  writeFileDurably(commitPath(paths, commit.commit_id), JSON.stringify(commit) + "\n");
}

export function writeHead(paths: WorkspacePaths, commitId: string): void {
  writeFileDurably(paths.head, commitId + "\n");
}

export function readHeadId(paths: WorkspacePaths): string {
  if (!existsSync(paths.head)) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      "Cannot read corpus HEAD: the file is missing",
      {
        remediation: ["Run `flameox validate` to inspect the corpus"],
      },
    );
  }
  const id = readFileSync(paths.head, "utf8").trim();
  if (!/^sha256:[0-9a-f]{64}$/.test(id)) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      `Cannot read corpus HEAD: it holds ${JSON.stringify(id.slice(0, 80))}, not a commit id`,
    );
  }
  return id;
}

/** Reads a commit and checks that its id is the digest of its content. */
export function readCommit(paths: WorkspacePaths, commitId: string): CorpusCommit {
  let commit: CorpusCommit;
  try {
    commit = JSON.parse(readFileSync(commitPath(paths, commitId), "utf8"));
  } catch (error) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      `Cannot read corpus commit ${commitId}: ${(error as Error).message}`,
    );
  }
  const { commit_id, ...body } = commit;
  if (commit_id !== commitId || digestOf(body) !== commitId) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      `Corpus commit ${commitId} does not match its content digest`,
    );
  }
  if (commit.schema_version !== CORPUS_SCHEMA_VERSION) {
    throw new FlameoxError(
      "EVIDENCE_SCHEMA_MISMATCH",
      `Corpus commit ${commitId} has schema version ${commit.schema_version}`,
    );
  }
  return commit;
}

export function readManifest(paths: WorkspacePaths, entry: CommitEntry): GenerationManifest {
  const path = generationManifestPath(paths, entry.generation_id);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      `Cannot read manifest of generation ${entry.generation_id}: ${(error as Error).message}`,
    );
  }
  if (sha256Hex(text) !== entry.manifest_sha256) {
    throw new FlameoxError(
      "CORPUS_INTEGRITY_FAILED",
      `Manifest of generation ${entry.generation_id} does not match the digest in its commit`,
    );
  }
  return JSON.parse(text) as GenerationManifest;
}

/** Writes the first, empty commit of a new workspace so every snapshot names a commit. */
export function writeRootCommit(paths: WorkspacePaths): CorpusCommit {
  const root = buildCommit(null, []);
  writeCommit(paths, root);
  writeHead(paths, root.commit_id);
  return root;
}
