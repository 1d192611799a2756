/**
 * The HEAD log: every corpus HEAD this control plane published, in order. Commits only
 * ever extend their parent, so each logged HEAD must be HEAD itself or one of its
 * ancestors; a logged commit HEAD does not descend from means HEAD was moved back (a
 * restored backup, a hand edit) and evidence published since is no longer visible.
 * Appended in the same transaction as the publication it records.
 */
import type { Database } from "bun:sqlite";
import { nowIso } from "./control-plane.ts";
import type { CorpusCommit } from "./corpus-records.ts";

export interface HeadLogEntry {
  seq: number;
  commit_id: string;
  parent_commit_id: string | null;
  recorded_at: string;
}

/** Appends `commit` unless it is already the newest entry. */
export function recordHead(
  db: Database,
  commit: Pick<CorpusCommit, "commit_id" | "parent_commit_id">,
): void {
  if (!hasHeadLog(db)) return;
  const last = lastLoggedHead(db);
  if (last?.commit_id === commit.commit_id) return;
  db.query(
    "INSERT INTO corpus_head_log (commit_id, parent_commit_id, recorded_at) VALUES (?, ?, ?)",
  ).run(commit.commit_id, commit.parent_commit_id, nowIso());
}

export function lastLoggedHead(db: Database): HeadLogEntry | null {
  if (!hasHeadLog(db)) return null;
  return db
    .query("SELECT * FROM corpus_head_log ORDER BY seq DESC LIMIT 1")
    .get() as HeadLogEntry | null;
}

export function loggedHeads(db: Database): HeadLogEntry[] {
  if (!hasHeadLog(db)) return [];
  return db.query("SELECT * FROM corpus_head_log ORDER BY seq").all() as HeadLogEntry[];
}

/** False only for a control plane opened read-only before its HEAD-log step was applied. */
export function hasHeadLog(db: Database): boolean {
  return (
    db
      .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpus_head_log'")
      .get() !== null
  );
}
