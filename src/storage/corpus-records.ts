/**
 * On-disk records of the corpus: generation manifests and commits. A commit lists the
 * complete active inventory (every live generation), so HEAD alone defines what any
 * reader sees.
 */
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import type { Limitation } from "../domain/evidence-status.ts";

export const CORPUS_SCHEMA_VERSION = 1;

export interface GenerationFile {
  table: EvidenceTableName;
  /** Relative to `.diagnostics/`; never an absolute host path. */
  path: string;
  sha256: string;
  bytes: number;
  rows: number;
  schema_id: string;
}

export interface GenerationManifest {
  schema_version: number;
  generation_id: string;
  created_at: string;
  extractor: { name: string; version: string };
  publisher: { name: string; version: string };
  inputs: { run_ids: string[]; artifact_ids: string[]; base_commit_id: string };
  files: GenerationFile[];
  limitations: Limitation[];
  summary: Record<string, unknown>;
}

export interface CommitEntry {
  generation_id: string;
  manifest_sha256: string;
  run_ids: string[];
  artifact_ids: string[];
  extractor: string;
  tables: Partial<Record<EvidenceTableName, number>>;
}

export interface CorpusCommit {
  schema_version: number;
  commit_id: string;
  parent_commit_id: string | null;
  created_at: string;
  generations: CommitEntry[];
  inventory_digest: string;
}
