/**
 * The result model of an executed capture (CLI --json and MCP execute_capture_plan),
 * and the execution document kept on the run. Neither carries storage paths or
 * environment values.
 */
import type {
  ContainmentReport,
  ResourceSummary,
  TerminationEvidence,
} from "../../domain/capture.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import type {
  CaptureStatus,
  ExecutionStatus,
  ExtractionStatus,
  ValidationStatus,
} from "../../domain/records.ts";
import type { ScalarValue } from "../../domain/workload/workload-schema.ts";
import type { CaptureLimits, ExecutableView } from "./capture-plan.ts";

export interface CapturedArtifact {
  artifact_id: string;
  registration_id: string;
  display_name: string;
  kind: string;
  role: string;
  media_type: string;
  byte_length: number;
  /** True when bytes were cut by the output cap or a stream had to be abandoned. */
  partial: boolean;
  /** Bytes the producer wrote (more than byte_length when partial); null when not counted. */
  produced_bytes: number | null;
  deduplicated: boolean;
}

export interface CaptureExtraction {
  artifact_id: string;
  status: "published" | "failed" | "cancelled";
  adapter: string;
  generation_id: string | null;
  corpus_commit_id: string | null;
  tables: Record<string, number>;
  error: { code: string; message: string } | null;
}

export interface CaptureValidation {
  strength: string;
  status: ValidationStatus;
  exit_code: number | null;
  wall_ms: number | null;
  artifact_ids: string[];
  /** From the oracle's receipt, or why the oracle failed; null on a plain pass. */
  reason: string | null;
  /** The oracle's flameox.oracle-receipt.v1 document when it wrote a readable one. */
  receipt: Record<string, unknown> | null;
}

/** Kept on the run as its execution document. */
export interface ExecutionDocument {
  adapter: {
    name: string;
    version: string;
    options: Record<string, string | number | boolean | null>;
  };
  producer: { name: string; version: string | null };
  command: { argv: string[]; cwd: string; environment_names: string[] };
  executables: ExecutableView[];
  limits: CaptureLimits;
  containment: ContainmentReport;
  plan: { request_digest: string; planned_at: string; configuration_id: string };
  workload_process: { pid: number; start_time: string | null } | null;
  termination: TerminationEvidence | null;
  resources: ResourceSummary | null;
  summary: Record<string, unknown> | null;
  validation: CaptureValidation | null;
}

export interface CaptureResult {
  run_id: string;
  adapter: {
    name: string;
    version: string;
    options: Record<string, string | number | boolean | null>;
  };
  workload: {
    name: string;
    workload_definition_id: string;
    workload_instance_id: string;
    parameters: Record<string, ScalarValue>;
  };
  execution_status: ExecutionStatus;
  capture_status: CaptureStatus;
  extraction_status: ExtractionStatus;
  validation_status: ValidationStatus;
  termination: TerminationEvidence;
  resources: ResourceSummary;
  containment: ContainmentReport;
  artifacts: CapturedArtifact[];
  extractions: CaptureExtraction[];
  validation: CaptureValidation | null;
  summary: Record<string, unknown> | null;
  source: { source_state_id: string; identity_quality: string };
  environment: { environment_id: string; identity_quality: string };
  limitations: Limitation[];
  /** The analysis to call next, when the capture produced profile evidence. */
  next_tool: string | null;
}
