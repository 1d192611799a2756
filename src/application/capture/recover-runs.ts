/**
 * `flameox recover`: closes runs whose owning process is provably gone (another boot,
 * pid absent, or pid reused by a process with another start time), stops what they left
 * running and reclaims what they left on disk. A run whose lease is alive, or cannot be
 * judged, is never touched.
 *
 * - A run whose generation HEAD already holds (the process died after HEAD moved, before
 *   its control-plane transaction committed) is reconciled from the corpus and marked
 *   published: HEAD is the publication authority, not the control plane.
 * - Any other dead run is closed as failed with RUN_ABANDONED; its orphaned workload group
 *   is killed and its extraction rows still `running` are closed.
 * - Staging directories whose owner is gone are removed, after their parse worker (if it
 *   still runs with the recorded start time) is killed.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { killOrphanedGroup } from "../../broker/process-reaper.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { projectCatalog } from "../../storage/catalog.ts";
import { nowIso } from "../../storage/control-plane.ts";
import type { CorpusCommit } from "../../storage/corpus-records.ts";
import { readCommit, readHeadId, readManifest } from "../../storage/corpus-store.ts";
import { recordHead } from "../../storage/head-log.ts";
import { type OpenRun, openRuns } from "../../storage/open-runs.ts";
import { judgeLease } from "../../storage/process-lease.ts";
import { listStaging } from "../../storage/staging-lease.ts";
import type { Workspace } from "../../storage/workspace.ts";

export interface RecoverResult {
  checked: number;
  closed: { run_id: string; run_type: string; reason: string; orphaned_processes_killed: number }[];
  /**
   * Runs whose process died after HEAD moved: HEAD holds their generations, so they are published.
   */
  reconciled: { run_id: string; generation_ids: string[] }[];
  live: { run_id: string; pid: number }[];
  unknown: { run_id: string; reason: string }[];
  /** Staging directories of dead operations that were removed, with the workers stopped. */
  staging_reclaimed: { operation_id: string; workers_killed: number }[];
  /** Extraction rows left `running` by a dead run, now closed as failed. */
  extractions_closed: number;
}

export function recoverRuns(ws: Workspace): RecoverResult {
  const result: RecoverResult = {
    checked: 0,
    closed: [],
    reconciled: [],
    live: [],
    unknown: [],
    staging_reclaimed: [],
    extractions_closed: 0,
  };
  const head = readCommit(ws.paths, readHeadId(ws.paths));
  for (const run of openRuns(ws.control.db)) {
    result.checked += 1;
    const verdict = judgeLease({
      pid: run.lease_pid,
      boot_id: run.lease_boot_id,
      start_time: run.lease_start_time,
    });
    if (verdict.state === "alive") result.live.push({ run_id: run.run_id, pid: run.lease_pid! });
    else if (verdict.state === "unknown")
      result.unknown.push({ run_id: run.run_id, reason: verdict.reason });
    else {
      const published = head.generations.filter((g) => g.run_ids.includes(run.run_id));
      if (published.length > 0)
        result.reconciled.push(
          reconcile(
            ws,
            run,
            head,
            published.map((g) => g.generation_id),
          ),
        );
      else {
        const { closed, extractionsClosed } = close(
          ws,
          run,
          verdict.reason,
          verdict.cause === "rebooted",
        );
        result.closed.push(closed);
        result.extractions_closed += extractionsClosed;
      }
    }
  }
  result.staging_reclaimed = reclaimStaging(ws);
  result.extractions_closed += closeOrphanedExtractions(ws);
  return result;
}

function close(
  ws: Workspace,
  run: OpenRun,
  reason: string,
  rebooted: boolean,
): { closed: RecoverResult["closed"][number]; extractionsClosed: number } {
  const workload = (
    run.execution as { workload_process?: { pid: number; start_time: string | null } | null } | null
  )?.workload_process;
  // After a reboot the pid names nothing of ours; otherwise the start time proves identity.
  const killed =
    workload?.start_time && !rebooted ? killOrphanedGroup(workload.pid, workload.start_time) : 0;
  const message =
    `The run was abandoned: its owning flameox process is gone (${reason}); closed by flameox ` +
    `recover`;
  const limitation: Limitation = {
    code: "abandoned",
    message:
      killed > 0 ? `${message}; ${killed} orphaned workload process(es) were killed` : message,
  };
  const extractionsClosed = ws.control.withWriteLock(() => {
    const current = ws.runs.get(run.run_id);
    const open = (status: string) =>
      status === "running" || status === "pending" || status === "planned";
    ws.runs.update(run.run_id, {
      execution_status: open(current.execution_status) ? "failed" : undefined,
      capture_status: open(current.capture_status) ? "failed" : undefined,
      extraction_status: open(current.extraction_status) ? "failed" : undefined,
      validation_status: open(current.validation_status) ? "error" : undefined,
      limitations: [...current.limitations, limitation],
      error: { code: "RUN_ABANDONED", message },
      releaseLease: true,
    });
    return ws.control.db
      .query(
        "UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ? WHERE " +
          "run_id = ? AND status = 'running'",
      )
      .run(JSON.stringify({ code: "RUN_ABANDONED", message }), nowIso(), run.run_id).changes;
  });
  rmSync(join(ws.paths.staging, run.run_id), { recursive: true, force: true });
  return {
    closed: {
      run_id: run.run_id,
      run_type: run.run_type,
      reason,
      orphaned_processes_killed: killed,
    },
    extractionsClosed,
  };
}

/** The run's evidence is in HEAD: record it as published, as its own transaction would have. */
function reconcile(
  ws: Workspace,
  run: OpenRun,
  head: CorpusCommit,
  generationIds: string[],
): RecoverResult["reconciled"][number] {
  const limitation: Limitation = {
    code: "reconciled_from_corpus",
    message:
      "The importing process died after publishing to HEAD; flameox recover recorded the " +
      "publication from the corpus",
  };
  ws.control.withWriteLock(() => {
    recordHead(ws.control.db, head);
    projectCatalog(ws.control.db, head);
    for (const entry of head.generations.filter((g) => generationIds.includes(g.generation_id))) {
      const manifest = readManifest(ws.paths, entry);
      for (const artifactId of entry.artifact_ids) {
        const row = ws.control.db
          .query(
            "SELECT extraction_id FROM extractions WHERE run_id = ? AND artifact_id = ? AND " +
              "status = 'running' ORDER BY started_at DESC LIMIT 1",
          )
          .get(run.run_id, artifactId) as { extraction_id: string } | null;
        if (!row) continue;
        ws.control.db
          .query(
            `UPDATE extractions SET status = 'published', adapter = ?, adapter_version = ?,
               generation_id = ?, limitations_json = ?, summary_json = ?, finished_at = ?
               WHERE extraction_id = ?`,
          )
          .run(
            manifest.extractor.name,
            manifest.extractor.version,
            entry.generation_id,
            JSON.stringify(manifest.limitations),
            JSON.stringify(manifest.summary),
            nowIso(),
            row.extraction_id,
          );
      }
    }
    const current = ws.runs.get(run.run_id);
    const open = (status: string) =>
      status === "running" || status === "pending" || status === "planned";
    ws.runs.update(run.run_id, {
      capture_status: open(current.capture_status) ? "registered" : undefined,
      extraction_status: "published",
      limitations: [...current.limitations, limitation],
      releaseLease: true,
    });
  });
  rmSync(join(ws.paths.staging, run.run_id), { recursive: true, force: true });
  return { run_id: run.run_id, generation_ids: generationIds };
}

function reclaimStaging(ws: Workspace): RecoverResult["staging_reclaimed"] {
  const reclaimed: RecoverResult["staging_reclaimed"] = [];
  const runLease = ws.control.db.query(
    "SELECT lease_pid AS pid, lease_boot_id AS boot_id, lease_start_time AS start_time FROM " +
      "runs WHERE run_id = ?",
  );
  for (const entry of listStaging(ws.paths)) {
    if (!entry.lease) {
      // A capture's staging is named after its run: a leftover once the run's owner is gone or
      // released it.
      const owner = runLease.get(entry.name) as {
        pid: number | null;
        boot_id: string | null;
        start_time: string | null;
      } | null;
      if (owner && (owner.pid === null || judgeLease(owner).state === "gone")) {
        rmSync(entry.dir, { recursive: true, force: true });
        reclaimed.push({ operation_id: entry.name, workers_killed: 0 });
      }
      continue;
    }
    const verdict = judgeLease(entry.lease.owner);
    if (verdict.state !== "gone") continue;
    const worker = entry.lease.worker;
    const killed =
      worker?.start_time && verdict.cause !== "rebooted"
        ? killOrphanedGroup(worker.pid, worker.start_time)
        : 0;
    rmSync(entry.dir, { recursive: true, force: true });
    reclaimed.push({ operation_id: entry.lease.operation_id, workers_killed: killed });
  }
  return reclaimed;
}

/**
 * Extraction rows still `running` whose run is no longer open (closed by an older recover, or by
 * hand).
 */
function closeOrphanedExtractions(ws: Workspace): number {
  return ws.control.withWriteLock(() => {
    const message = "The extraction was abandoned: its run is closed";
    return ws.control.db
      .query(
        `UPDATE extractions SET status = 'failed', error_json = ?, finished_at = ?
         WHERE status = 'running' AND run_id IN (SELECT run_id FROM runs 
           WHERE extraction_status NOT IN ('pending', 'running'))`,
      )
      .run(JSON.stringify({ code: "RUN_ABANDONED", message }), nowIso()).changes;
  });
}
