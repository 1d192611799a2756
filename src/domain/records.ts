/**
 * Control-plane records as the rest of flameox sees them. These are also the result
 * models the CLI prints with --json and the MCP server wraps in its envelope. They never
 * contain host storage paths.
 */
import type { Limitation } from "./evidence-status.ts";

export const SENSITIVITIES = ["normal", "internal", "sensitive"] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

export const ARTIFACT_KINDS = [
  "sample_profile",
  "execution_trace",
  "otlp_trace",
  "memory_profile",
  "benchmark_samples",
  "test_report",
  "execution_coverage",
  "process_output",
  "rendered_picture",
  "unknown",
] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export type RunType = "import" | "execution";
export const EXECUTION_STATUSES = [
  "not_applicable",
  "planned",
  "running",
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const CAPTURE_STATUSES = [
  "pending",
  "running",
  "registered",
  "failed",
  "quarantined",
  "cancelled",
] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];
export const EXTRACTION_STATUSES = [
  "not_requested",
  "pending",
  "running",
  "published",
  "failed",
  "quarantined",
  "cancelled",
] as const;
export type ExtractionStatus = (typeof EXTRACTION_STATUSES)[number];
/** inconclusive and unsupported come from an oracle's receipt (flameox.oracle-receipt.v1). */
export const VALIDATION_STATUSES = [
  "not_requested",
  "pending",
  "running",
  "passed",
  "failed",
  "error",
  "inconclusive",
  "unsupported",
  "cancelled",
] as const;
export type ValidationStatus = (typeof VALIDATION_STATUSES)[number];

export interface RunRecord {
  run_id: string;
  run_type: RunType;
  created_at: string;
  updated_at: string;
  revision: number;
  execution_status: ExecutionStatus;
  capture_status: CaptureStatus;
  extraction_status: ExtractionStatus;
  validation_status: ValidationStatus;
  limitations: Limitation[];
  error: { code: string; message: string } | null;
  generation_ids: string[];
  artifact_ids: string[];
}

export interface RegistrationRecord {
  registration_id: string;
  run_id: string;
  artifact_id: string;
  display_name: string;
  kind: string;
  media_type: string;
  role: string;
  producer: string | null;
  producer_version: string | null;
  sensitivity: Sensitivity;
  registered_at: string;
}

export interface ArtifactRecord {
  artifact_id: string;
  byte_length: number;
  created_at: string;
  effective_sensitivity: Sensitivity;
  kinds: string[];
  registration_count: number;
}
