/**
 * The chain of corpus commits from HEAD back to the root, each read and checked against
 * its content digest. Commits are never deleted, so every ancestor must be readable; a
 * missing or altered one is CORPUS_INTEGRITY_FAILED.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { CorpusCommit } from "./corpus-records.ts";
import { readCommit } from "./corpus-store.ts";
import type { WorkspacePaths } from "./workspace-paths.ts";

/** HEAD first, root last. */
export function readAncestry(paths: WorkspacePaths, headId: string): CorpusCommit[] {
  const chain: CorpusCommit[] = [];
  const seen = new Set<string>();
  for (let id: string | null = headId; id !== null; ) {
    if (seen.has(id))
      throw new FlameoxError("CORPUS_INTEGRITY_FAILED", `Corpus commit ${id} is its own ancestor`);
    seen.add(id);
    const commit = readCommit(paths, id);
    chain.push(commit);
    id = commit.parent_commit_id;
  }
  return chain;
}
