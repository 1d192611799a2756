/** `flameox catalog rebuild|validate`: the derived catalog against the corpus HEAD. */
import { FlameoxError } from "../domain/errors.ts";
import type { CorpusCommit } from "../storage/corpus-records.ts";
import {
  catalogInSync,
  diffCatalog,
  projectCatalog,
  type CatalogDiff,
} from "../storage/catalog.ts";
import { recordHead } from "../storage/head-log.ts";
import type { Workspace } from "../storage/workspace.ts";
import { chainProblems, checkCorpusChain } from "./corpus-chain-check.ts";

/**
 * Rebuilds the catalog from HEAD, only when HEAD and the control plane agree: a catalog
 * projected over a rolled-back HEAD or a control plane that lost rows would bless them.
 */
export function rebuildCatalog(ws: Workspace): CatalogDiff & { rebuilt: boolean } {
  return ws.control.withWriteLock(() => {
    const report = checkCorpusChain(ws);
    const problems = chainProblems(report);
    if (problems.length > 0) {
      throw new FlameoxError(
        "CORPUS_INTEGRITY_FAILED",
        `Cannot rebuild the catalog: ${problems.join("; ")}`,
        {
          remediation: [
            "Run `flameox validate` for the details",
            "Run `flameox recover --rebuild-from-corpus` to restore the control plane from " +
              "the corpus",
          ],
        },
      );
    }
    const commit = report.chain[0]!;
    recordHead(ws.control.db, commit);
    projectCatalog(ws.control.db, commit);
    return { ...diffCatalog(ws.control.db, commit), rebuilt: true };
  });
}

/** The catalog compared with the commit `commit` (HEAD as pinned by the caller). */
export function validateCatalog(
  ws: Workspace,
  commit: CorpusCommit,
): CatalogDiff & { ok: boolean } {
  const diff = diffCatalog(ws.control.db, commit);
  return { ...diff, ok: catalogInSync(diff, commit) };
}
