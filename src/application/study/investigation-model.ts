/**
 * The investigation records' model: what investigations, revisioned hypotheses, findings and
 * recorded analyses hold, and the values their fields may take.
 */
import type { HotspotsResult } from "../../analysis/hotspots.ts";
import { HOTSPOTS_RECIPE } from "../../analysis/hotspots-recipe.ts";
import type { EvidenceRef } from "../../storage/investigation-records.ts";

export const FINDING_KINDS = [
  "hotspot",
  "regression",
  "anomaly",
  "hypothesis",
  "validation",
] as const;
export const EVIDENCE_LEVELS = ["observed", "derived", "inferred"] as const;
export const ASSESSMENTS = ["unassessed", "supported", "refuted", "inconclusive"] as const;
export const INVESTIGATION_STATUSES = ["open", "closed"] as const;
export const HYPOTHESIS_STATUSES = ["proposed", "supported", "refuted", "inconclusive"] as const;
export const ANALYSIS_RECIPES = [HOTSPOTS_RECIPE] as const;

export interface InvestigationRecord {
  investigation_id: string;
  title: string;
  question: string | null;
  status: (typeof INVESTIGATION_STATUSES)[number];
  created_at: string;
}
export interface InvestigationView extends InvestigationRecord {
  hypotheses: HypothesisRecord[];
  findings: FindingRecord[];
}
export interface HypothesisRecord {
  hypothesis_id: string;
  revision: number;
  investigation_id: string;
  statement: string;
  status: (typeof HYPOTHESIS_STATUSES)[number];
  created_at: string;
  evidence_refs: EvidenceRef[];
}
export interface FindingRecord {
  finding_id: string;
  revision: number;
  investigation_id: string | null;
  hypothesis_id: string | null;
  statement: string;
  kind: (typeof FINDING_KINDS)[number];
  evidence_level: (typeof EVIDENCE_LEVELS)[number];
  assessment: (typeof ASSESSMENTS)[number];
  comparison_id: string | null;
  created_at: string;
  evidence_refs: EvidenceRef[];
}
export interface AnalysisRecord {
  analysis_id: string;
  recipe: string;
  recipe_version: string;
  corpus_commit_id: string;
  investigation_id: string | null;
  parameters: Record<string, unknown>;
  parameters_digest: string;
  result_digest: string;
  created_at: string;
  evidence_refs: EvidenceRef[];
  result: HotspotsResult;
}
export interface Page<T> {
  items: T[];
  total: number;
  returned: number;
  truncated: boolean;
  next_cursor: string | null;
}
