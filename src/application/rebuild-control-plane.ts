/**
 * `flameox recover --rebuild-from-corpus`: restores what the control plane lost from the
 * immutable corpus (commits and generation manifests are the record of what was
 * published), under the write lock:
 *
 * 1. A HEAD rolled back to an ancestor of a HEAD the control plane published is moved
 *    forward again to the newest such commit that is still intact.
 * 2. For every generation in HEAD's chain: a missing artifact row is restored from its
 *    payload in the store (size), a missing run as a closed import run with a
 *    `restored_from_corpus` limitation, a missing registration and a missing published
 *    extraction from the manifest. What only the control plane knew (display names, the
 *    run's own history) cannot come back and is said so.
 * 3. The chain's commits missing from the HEAD log are appended, and the catalog is
 *    projected from HEAD.
 */
import { existsSync, statSync } from "node:fs";
import { newRegistrationId, hexFromArtifactId, newOperationId } from "../domain/ids.ts";
import type { Limitation } from "../domain/evidence-status.ts";
import { projectCatalog } from "../storage/catalog.ts";
import { readAncestry } from "../storage/corpus-chain.ts";
import { readHeadId, readManifest, writeHead } from "../storage/corpus-store.ts";
import { loggedHeads, recordHead } from "../storage/head-log.ts";
import type { Workspace } from "../storage/workspace.ts";
import { artifactPayloadPath } from "../storage/workspace-paths.ts";

export interface RebuildResult {
  corpus_commit_id: string;
  head_restored: { from: string; to: string } | null;
  runs_restored: string[];
  artifacts_restored: string[];
  /**
   * Artifacts named by a commit whose payload is not in the store either: their rows cannot be
   * restored.
   */
  artifacts_unrestorable: string[];
  registrations_restored: number;
  extractions_restored: number;
  head_log_entries_added: number;
}

const RESTORED: Limitation = {
  code: "restored_from_corpus",
  message:
    "The control plane lost this run; it was restored from the corpus by flameox recover " +
    "--rebuild-from-corpus (its run type, display names and history are not known)",
};

export function rebuildControlPlaneFromCorpus(ws: Workspace): RebuildResult {
  return ws.control.withWriteLock(() => {
    const headRestored = restoreRolledBackHead(ws);
    const headId = readHeadId(ws.paths);
    const chain = readAncestry(ws.paths, headId).reverse();
    const result: RebuildResult = {
      corpus_commit_id: headId,
      head_restored: headRestored,
      runs_restored: [],
      artifacts_restored: [],
      artifacts_unrestorable: [],
      registrations_restored: 0,
      extractions_restored: 0,
      head_log_entries_added: 0,
    };
    const db = ws.control.db;
    const seen = new Set<string>();
    for (const commit of chain) {
      for (const entry of commit.generations) {
        if (seen.has(entry.generation_id)) continue;
        seen.add(entry.generation_id);
        const manifest = readManifest(ws.paths, entry);
        const present = entry.artifact_ids.filter((artifactId) => {
          if (ws.artifacts.exists(artifactId)) return true;
          const payload = artifactPayloadPath(ws.paths, hexFromArtifactId(artifactId));
          if (!existsSync(payload)) {
            if (!result.artifacts_unrestorable.includes(artifactId))
              result.artifacts_unrestorable.push(artifactId);
            return false;
          }
          ws.artifacts.ensure(artifactId, statSync(payload).size);
          result.artifacts_restored.push(artifactId);
          return true;
        });
        for (const runId of entry.run_ids) {
          if (!ws.runs.exists(runId)) {
            ws.runs.create(runId, "import", {
              capture_status: "registered",
              extraction_status: "published",
              limitations: [RESTORED],
            });
            ws.runs.update(runId, { releaseLease: true });
            result.runs_restored.push(runId);
          }
          for (const artifactId of present) {
            const registered = db
              .query("SELECT 1 FROM registrations WHERE run_id = ? AND artifact_id = ?")
              .get(runId, artifactId);
            if (!registered) {
              ws.artifacts.register({
                registration_id: newRegistrationId(),
                run_id: runId,
                artifact_id: artifactId,
                display_name: `${artifactId.slice(0, 19)} (restored from corpus)`,
                kind: "unknown",
                media_type: "application/octet-stream",
                role: "input",
                producer:
                  typeof manifest.summary.producer === "string" ? manifest.summary.producer : null,
                producer_version: null,
                sensitivity: "normal",
                registered_at: manifest.created_at,
              });
              result.registrations_restored += 1;
            }
            const extracted = db
              .query("SELECT 1 FROM extractions WHERE generation_id = ?")
              .get(entry.generation_id);
            if (!extracted) {
              db.query(
                `INSERT INTO extractions (extraction_id, run_id, artifact_id, adapter,
                   adapter_version, status, generation_id, limitations_json, summary_json,
                   started_at, finished_at)
                 VALUES (?, ?, ?, ?, ?, 'published', ?, ?, ?, ?, ?)`,
              ).run(
                newOperationId(),
                runId,
                artifactId,
                manifest.extractor.name,
                manifest.extractor.version,
                entry.generation_id,
                JSON.stringify(manifest.limitations),
                JSON.stringify(manifest.summary),
                manifest.created_at,
                manifest.created_at,
              );
              result.extractions_restored += 1;
            }
          }
        }
      }
    }
    const logged = new Set(loggedHeads(db).map((e) => e.commit_id));
    for (const commit of chain) {
      if (logged.has(commit.commit_id)) continue;
      recordHead(db, commit);
      result.head_log_entries_added += 1;
    }
    projectCatalog(db, chain.at(-1)!);
    return result;
  });
}

/**
 * Moves HEAD forward to the newest logged HEAD that is intact and descends from the current HEAD.
 */
function restoreRolledBackHead(ws: Workspace): RebuildResult["head_restored"] {
  const headId = readHeadId(ws.paths);
  const logged = loggedHeads(ws.control.db);
  const chain = new Set(readAncestry(ws.paths, headId).map((c) => c.commit_id));
  if (logged.every((e) => chain.has(e.commit_id))) return null;
  for (const entry of [...logged].reverse()) {
    if (chain.has(entry.commit_id)) break;
    try {
      if (readAncestry(ws.paths, entry.commit_id).some((c) => c.commit_id === headId)) {
        writeHead(ws.paths, entry.commit_id);
        return { from: headId, to: entry.commit_id };
      }
    } catch {
      // That commit is gone or altered; try an older one.
    }
  }
  return null;
}
