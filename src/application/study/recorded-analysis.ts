/**
 * A recorded analysis: a recipe run on the pinned corpus commit, persisted with its
 * parameters, parameter and result digests and typed references to the runs, artifacts and
 * generations it read.
 */
import { randomUUID } from "node:crypto";
import { HOTSPOTS_VERSION } from "../../analysis/hotspots-recipe.ts";
import { resolveSubject } from "../../analysis/subject.ts";
import { digestOf } from "../../domain/canonical-digest.ts";
import { FRAME_METRICS, type FrameMetric } from "../../domain/evidence-schema.ts";
import { nowIso } from "../../storage/control-plane.ts";
import { InvestigationRecords, type EvidenceRef } from "../../storage/investigation-records.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import { StudyRecords } from "../../storage/study-records.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { bad, oneOf, str } from "./investigation-input.ts";
import { ANALYSIS_RECIPES, type AnalysisRecord } from "./investigation-model.ts";

// The recipe loads when an analysis is recorded: it brings the Parquet readers, which
// listing and reading investigation records never need.
const hotspotsRecipe = () => import("../../analysis/hotspots.ts");

/**
 * Runs a recipe on the pinned commit and persists its parameters, digests and typed references.
 */
export async function recordAnalysis(
  ws: Workspace,
  input: Record<string, unknown>,
  clamp: (limit: number | undefined) => number,
): Promise<AnalysisRecord> {
  const study = new StudyRecords(ws.control.db);
  const records = new InvestigationRecords(ws.control.db);
  const recipe = oneOf(input, "recipe", ANALYSIS_RECIPES);
  const subjectRef = str(input, "run_or_artifact", true);
  const investigationId = str(input, "investigation_id", false);
  const metric =
    input.metric === undefined || input.metric === null
      ? null
      : oneOf(input, "metric", FRAME_METRICS as readonly FrameMetric[]);
  if (
    input.limit !== undefined &&
    (typeof input.limit !== "number" || !Number.isInteger(input.limit) || input.limit < 1)
  )
    throw bad("limit", "Expected limit to be a positive integer");
  if (investigationId !== null) study.get("investigations", investigationId);
  const limit = clamp(input.limit as number | undefined);
  const snapshot = SnapshotHandle.pin(ws.paths);
  const subject = resolveSubject(ws, snapshot, subjectRef);
  const { analyzeHotspots } = await hotspotsRecipe();
  const result = await analyzeHotspots(snapshot, subject, { limit, metric: metric ?? undefined });
  const parameters = {
    recipe,
    recipe_version: HOTSPOTS_VERSION,
    subject: { type: subject.type, id: subject.id },
    metric,
    limit,
  };
  const refs: EvidenceRef[] = [
    ...result.inputs.run_ids.map(
      (id): EvidenceRef => ({ ref_type: "run", ref_id: id, relation: "context" }),
    ),
    ...result.inputs.artifact_ids.map(
      (id): EvidenceRef => ({ ref_type: "artifact", ref_id: id, relation: "context" }),
    ),
    ...result.inputs.generation_ids.map(
      (id): EvidenceRef => ({ ref_type: "generation", ref_id: id, relation: "context" }),
    ),
  ];
  const record: AnalysisRecord = {
    analysis_id: `ana_${randomUUID()}`,
    recipe,
    recipe_version: HOTSPOTS_VERSION,
    corpus_commit_id: result.corpus_commit_id,
    investigation_id: investigationId,
    parameters,
    parameters_digest: digestOf(parameters),
    result_digest: digestOf(result),
    created_at: nowIso(),
    evidence_refs: refs,
    result,
  };
  ws.control.withWriteLock(() => {
    study.insert("analyses", {
      analysis_id: record.analysis_id,
      recipe,
      corpus_commit_id: record.corpus_commit_id,
      parameters_digest: record.parameters_digest,
      result_digest: record.result_digest,
      created_at: record.created_at,
      record_json: JSON.stringify(record),
    });
    records.insertRefs("analysis", record.analysis_id, 0, refs);
  });
  return record;
}
