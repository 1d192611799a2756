/**
 * `flameox status` and workspace_status: identity, corpus HEAD, counts, the catalog's state
 * against HEAD, the control plane's health and the warnings a person should act on.
 */
import { catalogInSync, diffCatalog, type CatalogDiff } from "../storage/catalog.ts";
import { lastLoggedHead } from "../storage/head-log.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace, WorkspaceIdentity } from "../storage/workspace.ts";
import type { AnalysisCacheStatus } from "./analysis-cache.ts";

export interface StatusResult {
  workspace: WorkspaceIdentity;
  corpus_commit_id: string;
  counts: {
    runs: number;
    artifacts: number;
    registrations: number;
    generations: number;
    quarantined: number;
  };
  catalog: CatalogDiff & { in_sync: boolean };
  /** What this process keeps decoded between analyses, against its memory budget. */
  analysis_cache: AnalysisCacheStatus;
  control_plane: { quick_check: string; last_published_head: string | null };
  warnings: string[];
}

export function workspaceStatus(
  ws: Workspace,
  snapshot: SnapshotHandle,
  analysisCache: AnalysisCacheStatus,
): StatusResult {
  const count = (sql: string) => (ws.control.db.query(sql).get() as { n: number }).n;
  const diff = diffCatalog(ws.control.db, snapshot.commit);
  const quickCheck = (ws.control.db.query("PRAGMA quick_check").get() as { quick_check: string })
    .quick_check;
  const lastPublished = lastLoggedHead(ws.control.db)?.commit_id ?? null;
  // In sync means the control plane is sound and projects HEAD, and HEAD is what it last
  // published.
  const inSync =
    quickCheck === "ok" &&
    catalogInSync(diff, snapshot.commit) &&
    (lastPublished === null || lastPublished === snapshot.commitId);
  const warnings: string[] = [];
  if (quickCheck !== "ok")
    warnings.push(
      `The control plane fails SQLite quick_check (${quickCheck.slice(0, 200)}); run ` +
        `\`flameox validate\``,
    );
  else if (lastPublished !== null && lastPublished !== snapshot.commitId)
    warnings.push(
      "HEAD is not the newest HEAD the control plane published; run `flameox validate`",
    );
  else if (!inSync) warnings.push("The catalog is behind HEAD; run `flameox catalog rebuild`");
  const running = count(
    "SELECT count(*) AS n FROM runs WHERE capture_status = 'running' OR extraction_status = " +
      "'running'",
  );
  if (running > 0) warnings.push(`${running} run(s) are marked running`);
  return {
    workspace: ws.identity,
    corpus_commit_id: snapshot.commitId,
    counts: {
      runs: count("SELECT count(*) AS n FROM runs"),
      artifacts: count("SELECT count(*) AS n FROM artifacts"),
      registrations: count("SELECT count(*) AS n FROM registrations"),
      generations: snapshot.commit.generations.length,
      quarantined: count("SELECT count(*) AS n FROM quarantine"),
    },
    catalog: { ...diff, in_sync: inSync },
    analysis_cache: analysisCache,
    control_plane: { quick_check: quickCheck, last_published_head: lastPublished },
    warnings,
  };
}
