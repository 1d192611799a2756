/**
 * Trials: one attempt at one planned cell. Every attempt is registered, including
 * failures, timeouts and cancellations; a cell never attempted stays `unattempted`, so
 * incomplete blocks are visible rather than silently smaller.
 */
import type { PlannedCell } from "./block-design.ts";

export const TRIAL_OUTCOMES = [
  "unattempted",
  "running",
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "oracle_failed",
  "infrastructure_failed",
  "invalid",
] as const;
export type TrialOutcome = (typeof TRIAL_OUTCOMES)[number];

export const ORACLE_STRENGTHS = [
  "execution_check",
  "contract_check",
  "cross_treatment_equivalence",
] as const;
export type OracleStrength = (typeof ORACLE_STRENGTHS)[number];

export interface OracleReceipt {
  strength: OracleStrength;
  /** pass only when the oracle process exited 0 and its receipt (if any) said pass. */
  status: "pass" | "fail" | "inconclusive" | "unsupported" | "error";
  reason: string | null;
  exit_code: number | null;
  receipt: Record<string, unknown> | null;
}

export interface TrialRecord extends PlannedCell {
  schema_version: 1;
  trial_id: string;
  experiment_id: string;
  attempt: number;
  outcome: TrialOutcome;
  run_id: string | null;
  started_at: string | null;
  finished_at: string | null;
  failure_class: string | null;
  message: string | null;
  oracle: OracleReceipt | null;
  artifact_ids: string[];
}
