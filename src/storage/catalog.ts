/**
 * The catalog: a derived SQLite index of the HEAD commit (which generation covers which
 * run and artifact). It is a projection of corpus files only, so deleting it loses
 * nothing: `rebuildCatalog` restores it from HEAD, `validateCatalog` compares the two.
 */
import type { Database } from "bun:sqlite";
import type { CorpusCommit } from "./corpus-records.ts";

export function projectCatalog(db: Database, commit: CorpusCommit): void {
  db.exec("DELETE FROM catalog_generations");
  const insert = db.query(
    `INSERT INTO catalog_generations (generation_id, run_id, artifact_id, adapter, manifest_sha256,
       tables_json, committed_in)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const g of commit.generations) {
    insert.run(
      g.generation_id,
      g.run_ids[0] ?? "",
      g.artifact_ids[0] ?? "",
      g.extractor,
      g.manifest_sha256,
      JSON.stringify(g.tables),
      commit.commit_id,
    );
  }
  db.query("INSERT OR REPLACE INTO catalog_state (key, value) VALUES ('head', ?)").run(
    commit.commit_id,
  );
}

export function catalogHead(db: Database): string | null {
  const row = db.query("SELECT value FROM catalog_state WHERE key = 'head'").get() as {
    value: string;
  } | null;
  return row?.value ?? null;
}

export interface CatalogDiff {
  catalog_head: string | null;
  corpus_head: string;
  missing_generations: string[];
  extra_generations: string[];
}

export function diffCatalog(db: Database, commit: CorpusCommit): CatalogDiff {
  const rows = db.query("SELECT generation_id FROM catalog_generations").all() as {
    generation_id: string;
  }[];
  const inCatalog = new Set(rows.map((r) => r.generation_id));
  const inCommit = new Set(commit.generations.map((g) => g.generation_id));
  return {
    catalog_head: catalogHead(db),
    corpus_head: commit.commit_id,
    missing_generations: [...inCommit].filter((id) => !inCatalog.has(id)).sort(),
    extra_generations: [...inCatalog].filter((id) => !inCommit.has(id)).sort(),
  };
}

/**
 * Whether the catalog projects exactly this commit (a fresh workspace's empty root needs no
 * projection).
 */
export function catalogInSync(diff: CatalogDiff, commit: CorpusCommit): boolean {
  const headMatches =
    diff.catalog_head === commit.commit_id ||
    (diff.catalog_head === null && commit.generations.length === 0);
  return (
    headMatches && diff.missing_generations.length === 0 && diff.extra_generations.length === 0
  );
}
