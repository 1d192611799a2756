/**
 * `summarize`: a bounded digest of what is known about one or more runs, for a reviewer:
 * the run's statuses, its artifacts with their ids, the top hotspots with their frame
 * ids, its measurements grouped by what they measure, and its limitations. Every section
 * is read from one pinned commit and says which command gives the same figures in full
 * (`runs show`, `artifacts show`, `analyze hotspots`, `measurements query`), so each
 * number can be checked against its source rather than trusted.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { Limitation } from "../domain/evidence-status.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { HotspotsResult } from "../analysis/hotspots.ts";
import {
  measurementGroups,
  type MeasurementGroups,
} from "../analysis/measurements/measurement-groups.ts";
import { resolveSubject, type Subject } from "../analysis/subject.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";

export const SUMMARY_LIMITS = {
  runs: 10,
  hotspots: { fallback: 5, max: 25 },
  measurementGroups: { fallback: 20, max: 100 },
} as const;

export interface SummaryOptions {
  hotspots?: number;
  measurementGroups?: number;
}

export interface ArtifactDigest {
  artifact_id: string;
  display_names: string[];
  kinds: string[];
  producer: string | null;
  producer_version: string | null;
  byte_length: number;
}

export interface HotspotsDigest {
  metric: FrameMetric | null;
  unit: string | null;
  total_self_value: number;
  frames: number;
  items: {
    rank: number;
    frame_id: string;
    function: string;
    self_value: number;
    inclusive_value: number;
  }[];
  truncated: boolean;
}

export interface RunDigest {
  run_id: string;
  run_type: string;
  created_at: string;
  statuses: { execution: string; capture: string; extraction: string; validation: string };
  artifacts: ArtifactDigest[];
  hotspots: HotspotsDigest | null;
  measurements: MeasurementGroups | null;
  limitations: Limitation[];
  /** The commands that give each section's figures in full, at the same commit. */
  sources: {
    run: string;
    artifacts: string[];
    hotspots: string | null;
    measurements: string | null;
  };
}

export interface SummaryResult {
  schema_version: 1;
  summary: "runs.summary";
  corpus_commit_id: string;
  bounds: { hotspots: number; measurement_groups: number };
  runs: RunDigest[];
}

/** What the digest reads through the workspace service: hotspots share its part cache. */
export interface SummaryReaders {
  ws: Workspace;
  snapshot: SnapshotHandle;
  hotspots(snapshot: SnapshotHandle, subject: Subject, limit: number): Promise<HotspotsResult>;
}

const clamp = (value: number | undefined, { fallback, max }: { fallback: number; max: number }) =>
  value === undefined ? fallback : Math.max(1, Math.min(Math.floor(value), max));

export async function summarizeRuns(
  readers: SummaryReaders,
  runIds: readonly string[],
  options: SummaryOptions = {},
): Promise<SummaryResult> {
  const unique = [...new Set(runIds)];
  if (unique.length === 0 || unique.length > SUMMARY_LIMITS.runs) {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected 1 to ${SUMMARY_LIMITS.runs} run ids but found ${unique.length}`,
      { details: { field: "run_ids" } },
    );
  }
  const bounds = {
    hotspots: clamp(options.hotspots, SUMMARY_LIMITS.hotspots),
    measurement_groups: clamp(options.measurementGroups, SUMMARY_LIMITS.measurementGroups),
  };
  const runs: RunDigest[] = [];
  for (const runId of unique) runs.push(await digestRun(readers, runId, bounds));
  return {
    schema_version: 1,
    summary: "runs.summary",
    corpus_commit_id: readers.snapshot.commitId,
    bounds,
    runs,
  };
}

/**
 * A run's artifacts with their ids, names, kinds and producer, as `runs show` and `artifacts show`
 * give them.
 */
export function artifactsOfRun(ws: Workspace, runId: string): ArtifactDigest[] {
  const registrations = ws.artifacts.registrationsOfRun(runId);
  return [...new Set(registrations.map((r) => r.artifact_id))].map((id): ArtifactDigest => {
    const artifact = ws.artifacts.get(id);
    const mine = registrations.filter((r) => r.artifact_id === id);
    return {
      artifact_id: id,
      display_names: [...new Set(mine.map((r) => r.display_name))],
      kinds: artifact.kinds,
      producer: mine[0]?.producer ?? null,
      producer_version: mine[0]?.producer_version ?? null,
      byte_length: artifact.byte_length,
    };
  });
}

async function digestRun(
  readers: SummaryReaders,
  runId: string,
  bounds: SummaryResult["bounds"],
): Promise<RunDigest> {
  const { ws, snapshot } = readers;
  if (!runId.startsWith("run_"))
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Expected a run id (run_…) but found ${JSON.stringify(runId.slice(0, 80))}`,
      { details: { field: "run_ids" } },
    );
  const run = ws.runs.get(runId);
  const artifacts = artifactsOfRun(ws, runId);
  const subject = resolveSubject(ws, snapshot, runId);
  const hasFrames = subject.generations.some((g) => (g.tables.frame_measurements ?? 0) > 0);
  const hot = hasFrames ? await readers.hotspots(snapshot, subject, bounds.hotspots) : null;
  const measurements = await measurementGroups(snapshot, runId, bounds.measurement_groups);
  return {
    run_id: run.run_id,
    run_type: run.run_type,
    created_at: run.created_at,
    statuses: {
      execution: run.execution_status,
      capture: run.capture_status,
      extraction: run.extraction_status,
      validation: run.validation_status,
    },
    artifacts,
    hotspots:
      hot === null
        ? null
        : {
            metric: hot.metric,
            unit: hot.items[0]?.unit ?? null,
            total_self_value: hot.coverage.total_self_value,
            frames: hot.coverage.frames,
            items: hot.items.map((h) => ({
              rank: h.rank,
              frame_id: h.frame_id,
              function: h.function,
              self_value: h.self_value,
              inclusive_value: h.inclusive_value,
            })),
            truncated: hot.truncated,
          },
    measurements,
    limitations: run.limitations,
    sources: {
      run: `flameox runs show ${runId} --json`,
      artifacts: artifacts.map((a) => `flameox artifacts show ${a.artifact_id} --json`),
      hotspots:
        hot === null ? null : `flameox analyze hotspots ${runId} --limit ${bounds.hotspots} --json`,
      measurements:
        measurements === null ? null : `flameox measurements query --run-id ${runId} --json`,
    },
  };
}
