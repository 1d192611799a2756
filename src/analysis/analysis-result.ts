/**
 * The envelope every analysis result shares: recipe identity, the pinned commit it read,
 * its inputs, evidence status, limitations and pagination.
 */
import type { EvidenceStatus, Limitation } from "../domain/evidence-status.ts";
import type { CommitEntry } from "../storage/corpus-records.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Subject } from "./subject.ts";

export const ANALYSIS_SCHEMA_VERSION = 1;

export interface AnalysisInputs {
  subject: { type: "run" | "artifact"; id: string };
  run_ids: string[];
  artifact_ids: string[];
  generation_ids: string[];
}

export interface PageInfo {
  total: number;
  returned: number;
  truncated: boolean;
  next_cursor: string | null;
}

export interface AnalysisResult<T> extends PageInfo {
  schema_version: number;
  recipe: string;
  recipe_version: string;
  corpus_commit_id: string;
  claim_level: "observed" | "derived";
  inputs: AnalysisInputs;
  evidence: EvidenceStatus;
  limitations: Limitation[];
  items: T[];
}

export function inputsOf(subject: Subject, generationIds: string[]): AnalysisInputs {
  return {
    subject: { type: subject.type, id: subject.id },
    run_ids: subject.runIds,
    artifact_ids: subject.artifactIds,
    generation_ids: generationIds,
  };
}

/** Clamps a caller's limit to [1, max], defaulting when absent. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return Math.min(fallback, max);
  return Math.max(1, Math.min(Math.floor(limit), max));
}

/** Limitations of several generations, each distinct limitation once. */
export function distinctLimitations(lists: Limitation[][]): Limitation[] {
  const seen = new Map<string, Limitation>();
  for (const list of lists)
    for (const l of list)
      if (!seen.has(`${l.code}\u0000${l.message}`)) seen.set(`${l.code}\u0000${l.message}`, l);
  return [...seen.values()];
}

/** The fields every recipe's result starts with: identity, pinned commit, inputs, limitations. */
export function resultBase(
  recipe: { name: string; version: string; claimLevel: "observed" | "derived" },
  snapshot: SnapshotHandle,
  subject: Subject,
  generations: CommitEntry[],
) {
  return {
    schema_version: ANALYSIS_SCHEMA_VERSION,
    recipe: recipe.name,
    recipe_version: recipe.version,
    corpus_commit_id: snapshot.commitId,
    claim_level: recipe.claimLevel,
    inputs: inputsOf(
      subject,
      generations.map((g) => g.generation_id),
    ),
    limitations: distinctLimitations(generations.map((g) => snapshot.manifest(g).limitations)),
  };
}
