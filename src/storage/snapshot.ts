/**
 * SnapshotHandle pins one corpus commit. Every analysis acquires one first and resolves
 * all evidence through it, so a result is computed from exactly one commit and names it,
 * even while other processes publish new commits. Pinning reads HEAD once; it takes no
 * lock.
 */
import { join } from "node:path";
import type { EvidenceTableName } from "../domain/evidence-schema.ts";
import type { CommitEntry, CorpusCommit, GenerationManifest } from "./corpus-records.ts";
import { readCommit, readHeadId, readManifest } from "./corpus-store.ts";
import { type EvidencePartRef, readVerifiedPart } from "./evidence-part.ts";
import type { WorkspacePaths } from "./workspace-paths.ts";

/** One Parquet part of a snapshot, with what its manifest says about it. */
export type EvidenceFile = EvidencePartRef;

export class SnapshotHandle {
  readonly commitId: string;
  readonly commit: CorpusCommit;
  private readonly paths: WorkspacePaths;
  private readonly manifests = new Map<string, GenerationManifest>();

  private constructor(paths: WorkspacePaths, commit: CorpusCommit) {
    this.paths = paths;
    this.commit = commit;
    this.commitId = commit.commit_id;
  }

  static pin(paths: WorkspacePaths, commitId?: string): SnapshotHandle {
    return new SnapshotHandle(paths, readCommit(paths, commitId ?? readHeadId(paths)));
  }

  /** Generations in this commit that cover the given run or artifact (all when no filter). */
  generations(filter: { runId?: string; artifactId?: string } = {}): CommitEntry[] {
    return this.commit.generations.filter(
      (g) =>
        (!filter.runId || g.run_ids.includes(filter.runId)) &&
        (!filter.artifactId || g.artifact_ids.includes(filter.artifactId)),
    );
  }

  manifest(entry: CommitEntry): GenerationManifest {
    let manifest = this.manifests.get(entry.generation_id);
    if (!manifest) {
      manifest = readManifest(this.paths, entry);
      this.manifests.set(entry.generation_id, manifest);
    }
    return manifest;
  }

  /** The Parquet files of one table across the given generations, as absolute paths. */
  tableFiles(table: EvidenceTableName, entries: CommitEntry[]): EvidenceFile[] {
    const files: EvidenceFile[] = [];
    for (const entry of entries) {
      for (const file of this.manifest(entry).files) {
        if (file.table !== table) continue;
        files.push({
          generationId: entry.generation_id,
          table,
          path: join(this.paths.diagnostics, file.path),
          relativePath: file.path,
          sha256: file.sha256,
          bytes: file.bytes,
          rows: file.rows,
        });
      }
    }
    return files;
  }

  /** The part's bytes, verified against its manifest (see evidence-part.ts). */
  readFile(file: EvidenceFile): Uint8Array {
    return readVerifiedPart(file);
  }
}
