/**
 * Pages of the control plane's lists (runs, artifacts). A cursor is bound to the list's own
 * revision, not the corpus: an import adds a run at the top, which would shift every later
 * offset and repeat items, so a cursor from before it is STALE_CURSOR.
 */
import type { PageInfo } from "../analysis/analysis-result.ts";
import { decodeCursor, encodeCursor } from "../analysis/cursor.ts";
import { digestOf } from "../domain/canonical-digest.ts";
import type { Workspace } from "../storage/workspace.ts";

export interface Page<T> extends PageInfo {
  corpus_commit_id: string;
  items: T[];
}

export type ListTable = "runs" | "artifacts";

/** Changes whenever a row is added to or removed from the list's table. */
function listRevision(ws: Workspace, table: ListTable): string {
  const key = table === "runs" ? "run_id" : "artifact_id";
  const row = ws.control.db
    .query(`SELECT count(*) AS n, max(created_at || ' ' || ${key}) AS last FROM ${table}`)
    .get() as { n: number; last: string | null };
  return digestOf({ table, n: row.n, last: row.last }).slice(7, 23);
}

/** One page of `table` from `cursor`, `limit` rows long (already clamped by the caller). */
export function controlPlanePage<T>(
  ws: Workspace,
  page: { query: string; table: ListTable; commitId: string; limit: number },
  cursor: string | null | undefined,
  fetch: (offset: number, limit: number) => { items: T[]; total: number },
): Page<T> {
  const binding = {
    query: page.query,
    filters: {},
    commitId: listRevision(ws, page.table),
    stateName: "control-plane revision",
  };
  const offset = decodeCursor(cursor, binding);
  const { items, total } = fetch(offset, page.limit);
  const end = offset + items.length;
  return {
    corpus_commit_id: page.commitId,
    items,
    total,
    returned: items.length,
    truncated: end < total,
    next_cursor: end < total ? encodeCursor(binding, end) : null,
  };
}
