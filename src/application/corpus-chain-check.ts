/**
 * Checks the corpus against the control plane as a whole chain: every commit from HEAD
 * to the root must be intact, every run and artifact any commit names must exist in the
 * control plane (they vanish when the control plane loses writes, e.g. its WAL), and
 * every HEAD the control plane published must still be HEAD or one of its ancestors
 * (otherwise HEAD was rolled back). `validate`, `status` and `catalog rebuild` read it;
 * `recover --rebuild-from-corpus` repairs what it finds.
 */
import type { Database } from "bun:sqlite";
import { readAncestry } from "../storage/corpus-chain.ts";
import type { CorpusCommit } from "../storage/corpus-records.ts";
import { readHeadId } from "../storage/corpus-store.ts";
import { hasHeadLog, loggedHeads } from "../storage/head-log.ts";
import type { Workspace } from "../storage/workspace.ts";

export type HeadLogState =
  /** The newest published HEAD is HEAD. */
  | "at_head"
  /**
   * HEAD descends from the newest published HEAD (a publisher died before its transaction
   * committed, or the control plane lost writes).
   */
  | "behind_head"
  /** A published HEAD is not HEAD or an ancestor of it: HEAD was moved back. */
  | "rolled_back"
  /**
   * Nothing logged yet (a workspace from before the log, or one opened read-only before its
   * migration).
   */
  | "empty";

export interface CorpusChainReport {
  head_commit_id: string;
  /** HEAD first, root last. */
  chain: CorpusCommit[];
  missing_run_ids: string[];
  missing_artifact_ids: string[];
  head_log: { state: HeadLogState; last_logged: string | null; not_in_chain: string[] };
}

export function checkCorpusChain(ws: Workspace): CorpusChainReport {
  const headId = readHeadId(ws.paths);
  const chain = readAncestry(ws.paths, headId);
  const runIds = new Set<string>();
  const artifactIds = new Set<string>();
  for (const commit of chain) {
    for (const g of commit.generations) {
      for (const id of g.run_ids) runIds.add(id);
      for (const id of g.artifact_ids) artifactIds.add(id);
    }
  }
  return {
    head_commit_id: headId,
    chain,
    missing_run_ids: missingIds(ws.control.db, "runs", "run_id", runIds),
    missing_artifact_ids: missingIds(ws.control.db, "artifacts", "artifact_id", artifactIds),
    head_log: headLogState(ws.control.db, headId, new Set(chain.map((c) => c.commit_id))),
  };
}

/** Whether the report shows damage (as opposed to a control plane that only lags HEAD). */
export function chainProblems(report: CorpusChainReport): string[] {
  const problems: string[] = [];
  if (report.missing_run_ids.length + report.missing_artifact_ids.length > 0) {
    problems.push(
      `published commits name ${report.missing_run_ids.length} run(s) ` +
        `and ${report.missing_artifact_ids.length} artifact(s) the control plane does not have ` +
        `(it lost writes)`,
    );
  }
  if (report.head_log.state === "rolled_back") {
    problems.push(
      `HEAD was rolled back: the control plane published ${report.head_log.last_logged}, ` +
        `which HEAD does not descend from`,
    );
  }
  return problems;
}

function headLogState(
  db: Database,
  headId: string,
  chain: Set<string>,
): CorpusChainReport["head_log"] {
  if (!hasHeadLog(db)) return { state: "empty", last_logged: null, not_in_chain: [] };
  const logged = loggedHeads(db);
  const last = logged.at(-1)?.commit_id ?? null;
  const notInChain = [...new Set(logged.map((e) => e.commit_id).filter((id) => !chain.has(id)))];
  const state: HeadLogState =
    last === null
      ? "empty"
      : notInChain.length > 0
        ? "rolled_back"
        : last === headId
          ? "at_head"
          : "behind_head";
  return { state, last_logged: last, not_in_chain: notInChain };
}

function missingIds(
  db: Database,
  table: "runs" | "artifacts",
  column: "run_id" | "artifact_id",
  ids: Set<string>,
): string[] {
  const exists = db.query(`SELECT 1 FROM ${table} WHERE ${column} = ?`);
  return [...ids].filter((id) => exists.get(id) === null).sort();
}
