/**
 * Workspace validation. Standard: identity, control schema, HEAD and its commit digest,
 * every live generation's manifest digest, file presence and sizes, catalog agreement.
 * Full additionally rehashes every Parquet file and every artifact payload. Orphans left
 * by interrupted publications are reported as warnings: they are unreachable from HEAD
 * and therefore not evidence.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { catalogInSync, diffCatalog } from "../storage/catalog.ts";
import { verifyArtifact } from "../storage/cas.ts";
import { readCommit, readHeadId, readManifest } from "../storage/corpus-store.ts";
import { judgeLease } from "../storage/process-lease.ts";
import { type CorpusChainReport, checkCorpusChain } from "./corpus-chain-check.ts";
import { listStaging } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import { hexFromArtifactId } from "../domain/ids.ts";
import { FlameoxError } from "../domain/errors.ts";

export type CheckStatus = "passed" | "failed" | "warning";

export interface ValidationCheck {
  check: string;
  status: CheckStatus;
  message: string;
}

export interface ValidationReport {
  ok: boolean;
  level: "standard" | "full";
  corpus_commit_id: string | null;
  checks: ValidationCheck[];
  counts: {
    generations: number;
    evidence_files: number;
    artifacts: number;
    rehashed_bytes: number;
  };
}

export async function validateWorkspace(
  ws: Workspace,
  options: { full: boolean },
): Promise<ValidationReport> {
  const checks: ValidationCheck[] = [];
  const add = (check: string, status: CheckStatus, message: string) =>
    checks.push({ check, status, message });
  const counts = { generations: 0, evidence_files: 0, artifacts: 0, rehashed_bytes: 0 };
  add(
    "workspace_identity",
    "passed",
    `workspace ${ws.identity.workspace_id}, schema ${ws.identity.schema_version}`,
  );
  const integrity = ws.control.db.query("PRAGMA quick_check").get() as { quick_check: string };
  add(
    "control_plane",
    integrity.quick_check === "ok" ? "passed" : "failed",
    `SQLite quick_check: ${integrity.quick_check}`,
  );

  let commitId: string | null = null;
  try {
    commitId = readHeadId(ws.paths);
    const commit = readCommit(ws.paths, commitId);
    add(
      "corpus_head",
      "passed",
      `HEAD is ${commitId} with ${commit.generations.length} generations`,
    );
    const live = new Set<string>();
    for (const entry of commit.generations) {
      counts.generations += 1;
      live.add(entry.generation_id);
      try {
        const manifest = readManifest(ws.paths, entry);
        for (const file of manifest.files) {
          counts.evidence_files += 1;
          const path = join(ws.paths.diagnostics, file.path);
          if (!existsSync(path))
            throw new FlameoxError("CORPUS_INTEGRITY_FAILED", `${file.path} is missing`);
          const size = statSync(path).size;
          if (size !== file.bytes)
            throw new FlameoxError(
              "CORPUS_INTEGRITY_FAILED",
              `${file.path} has ${size} bytes, manifest says ${file.bytes}`,
            );
          if (options.full) {
            const hasher = new Bun.CryptoHasher("sha256");
            for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
            counts.rehashed_bytes += size;
            if (hasher.digest("hex") !== file.sha256)
              throw new FlameoxError(
                "CORPUS_INTEGRITY_FAILED",
                `${file.path} does not match its manifest sha256`,
              );
          }
        }
      } catch (error) {
        add(`generation:${entry.generation_id}`, "failed", (error as Error).message);
      }
    }
    checkChain(ws, add);
    const orphans = listGenerationDirs(ws.paths.evidence).filter((id) => !live.has(id));
    if (orphans.length > 0)
      add(
        "orphan_generations",
        "warning",
        `${orphans.length} generation(s) on disk are not in HEAD (interrupted publications); ` +
          `they are not evidence`,
      );
    const diff = diffCatalog(ws.control.db, commit);
    const catalogOk = catalogInSync(diff, commit);
    add(
      "catalog",
      catalogOk ? "passed" : "warning",
      catalogOk
        ? "catalog matches HEAD"
        : `catalog is behind HEAD (${diff.missing_generations.length} ` +
            `missing, ${diff.extra_generations.length} extra); run \`flameox catalog rebuild\``,
    );
  } catch (error) {
    add("corpus_head", "failed", (error as Error).message);
  }

  for (const artifact of ws.artifacts.allIds()) {
    counts.artifacts += 1;
    const hex = hexFromArtifactId(artifact.artifact_id);
    const path = join(ws.paths.artifacts, "sha256", hex.slice(0, 2), hex);
    if (options.full) {
      const problem = await verifyArtifact(ws.paths, hex, artifact.byte_length);
      counts.rehashed_bytes += artifact.byte_length;
      if (problem)
        add(`artifact:${artifact.artifact_id}`, "failed", `artifact integrity failed: ${problem}`);
    } else if (!existsSync(path) || statSync(path).size !== artifact.byte_length) {
      add(
        `artifact:${artifact.artifact_id}`,
        "failed",
        "artifact payload is missing or has the wrong size",
      );
    }
  }
  const staging = classifyStaging(ws);
  if (staging.dead + staging.unowned > 0) {
    add(
      "staging",
      "warning",
      `${staging.dead} staging entr${staging.dead === 1 ? "y" : "ies"} of dead operations ` +
        `(run \`flameox recover\` to reclaim them and stop their workers)` +
        (staging.unowned > 0 ? `, ${staging.unowned} without an owner lease` : "") +
        `; readers never look there`,
    );
  }
  const stuck = ws.control.db
    .query(
      "SELECT count(*) AS n FROM runs WHERE extraction_status = 'running' OR capture_status " +
        "= 'running'",
    )
    .get() as { n: number };
  if (stuck.n > 0)
    add(
      "active_runs",
      "warning",
      `${stuck.n} run(s) are marked running; if no flameox process is working on them they ` +
        `were interrupted`,
    );
  return {
    ok: !checks.some((c) => c.status === "failed"),
    level: options.full ? "full" : "standard",
    corpus_commit_id: commitId,
    checks,
    counts,
  };
}

/** The whole chain of commits against the control plane (see corpus-chain-check.ts). */
function checkChain(
  ws: Workspace,
  add: (check: string, status: CheckStatus, message: string) => void,
): void {
  let report: CorpusChainReport;
  try {
    report = checkCorpusChain(ws);
  } catch (error) {
    add("corpus_chain", "failed", (error as Error).message);
    return;
  }
  add(
    "corpus_chain",
    "passed",
    `${report.chain.length} commit(s) from HEAD to the root are intact`,
  );
  const runs = report.missing_run_ids.length;
  const artifacts = report.missing_artifact_ids.length;
  add(
    "control_plane_rows",
    runs + artifacts === 0 ? "passed" : "failed",
    runs + artifacts === 0
      ? "every run and artifact named by a commit is in the control plane"
      : `published commits name ${runs} run(s) and ${artifacts} artifact(s) the control plane ` +
          `does not have (it lost writes); run \`flameox recover --rebuild-from-corpus\``,
  );
  const log = report.head_log;
  const messages: Record<typeof log.state, [CheckStatus, string]> = {
    at_head: ["passed", "HEAD is the newest HEAD the control plane published"],
    behind_head: [
      "warning",
      `HEAD descends from the newest HEAD the control plane published (${log.last_logged}); ` +
        `a publisher died before recording it: run \`flameox recover\``,
    ],
    rolled_back: [
      "failed",
      `HEAD was rolled back: the control plane published ${log.not_in_chain.length} ` +
        `commit(s) HEAD does not descend from (newest ${log.last_logged}); run \`flameox ` +
        `recover --rebuild-from-corpus\` to restore it`,
    ],
    empty: [
      "warning",
      "the control plane has no HEAD log yet (a workspace from an older flameox); the next " +
        "publication or `flameox recover --rebuild-from-corpus` starts it",
    ],
  };
  add("head_log", ...messages[log.state]);
}

/** Staging entries by owner: a live owner's work in progress is not a leftover. */
function classifyStaging(ws: Workspace): { live: number; dead: number; unowned: number } {
  const counts = { live: 0, dead: 0, unowned: 0 };
  const runLease = ws.control.db.query(
    "SELECT lease_pid AS pid, lease_boot_id AS boot_id, lease_start_time AS start_time FROM " +
      "runs WHERE run_id = ?",
  );
  for (const entry of listStaging(ws.paths)) {
    // A capture's staging is named after its run, whose lease says who owns it.
    const owner =
      entry.lease?.owner ??
      (runLease.get(entry.name) as {
        pid: number | null;
        boot_id: string | null;
        start_time: string | null;
      } | null);
    if (!owner) counts.unowned += 1;
    else if (owner.pid === null || judgeLease(owner).state === "gone") counts.dead += 1;
    else counts.live += 1;
  }
  return counts;
}

function listGenerationDirs(evidenceDir: string): string[] {
  if (!existsSync(evidenceDir)) return [];
  const ids = new Set<string>();
  for (const table of readdirSync(evidenceDir)) {
    for (const gen of readdirSync(join(evidenceDir, table))) ids.add(gen);
  }
  return [...ids];
}
