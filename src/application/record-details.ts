/**
 * One run or one artifact in full, and the names runs and artifacts were registered under:
 * the detail views of `flameox runs|artifacts show`, get_run and get_artifact.
 */
import { resolveSubject } from "../analysis/subject.ts";
import type { ArtifactRecord, RegistrationRecord, RunRecord } from "../domain/records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";
import { traceEventRows } from "../domain/trace-event-rows.ts";

export interface RunDetail extends RunRecord {
  registrations: RegistrationRecord[];
  /** Execution runs: workload, execution document and identities; null for imports. */
  execution: {
    workload: Record<string, unknown> | null;
    execution: Record<string, unknown> | null;
    source_identity: Record<string, unknown> | null;
    environment_identity: Record<string, unknown> | null;
  } | null;
}

/** Registrations shown inline with an artifact; the rest are counted, never dumped. */
const INLINE_REGISTRATIONS = 20;

export interface ArtifactDetail extends ArtifactRecord {
  /** The first registrations (oldest first); `registration_count` is the total. */
  registrations: RegistrationRecord[];
  registrations_truncated: boolean;
  generation_ids: string[];
  supported_analyses: string[];
  resource_uri: string;
}

export function runDetail(ws: Workspace, runId: string): RunDetail {
  const run = ws.runs.get(runId);
  const execution =
    run.run_type === "execution"
      ? (ws.runs.executionFields(runId) as NonNullable<RunDetail["execution"]>)
      : null;
  return { ...run, registrations: ws.artifacts.registrationsOfRun(runId), execution };
}

/** An artifact by any id `resolveSubject` accepts, with the analyses its evidence supports. */
export function artifactDetail(
  ws: Workspace,
  snapshot: SnapshotHandle,
  artifactId: string,
): ArtifactDetail {
  const subject = resolveSubject(ws, snapshot, artifactId);
  const artifact = ws.artifacts.get(subject.id);
  const generations = subject.generations;
  const analyses = new Set<string>();
  for (const g of generations) {
    if ((g.tables.frame_measurements ?? 0) > 0)
      analyses
        .add("analyze_hotspots")
        .add("get_frame_callers")
        .add("get_frame_callees")
        .add("get_stack_examples");
    if ((traceEventRows(g.tables) ?? 0) > 0) analyses.add("get_trace_window");
    if ((g.tables.test_results ?? 0) > 0) analyses.add("analyze_failures");
    if ((g.tables.coverage_lines ?? 0) > 0) analyses.add("analyze_coverage");
    if ((g.tables.otel_spans ?? 0) > 0)
      analyses
        .add("get_operation_window")
        .add("get_operation_transitions")
        .add("get_lifecycle_gaps");
  }
  return {
    ...artifact,
    registrations: ws.artifacts.registrations(subject.id, INLINE_REGISTRATIONS),
    registrations_truncated: artifact.registration_count > INLINE_REGISTRATIONS,
    generation_ids: generations.map((g) => g.generation_id),
    supported_analyses: [...analyses],
    resource_uri: `flameox://artifacts/${encodeURIComponent(subject.id)}`,
  };
}

/**
 * The display names registered to each run (file names, stdout/stderr), for listings read by
 * people.
 */
export function runDisplayNames(
  ws: Workspace,
  runIds: readonly string[],
): Record<string, string[]> {
  return Object.fromEntries(
    runIds.map((id) => [
      id,
      [...new Set(ws.artifacts.registrationsOfRun(id).map((r) => r.display_name))],
    ]),
  );
}

/** Up to `perArtifact` distinct display names each artifact was registered under. */
export function artifactDisplayNames(
  ws: Workspace,
  artifactIds: readonly string[],
  perArtifact: number,
): Record<string, string[]> {
  return Object.fromEntries(
    artifactIds.map((id) => [
      id,
      [...new Set(ws.artifacts.registrations(id, 20).map((r) => r.display_name))].slice(
        0,
        perArtifact,
      ),
    ]),
  );
}
