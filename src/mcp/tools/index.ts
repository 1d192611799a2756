/** Every tool, in the fixed order tools/list reports them (the first-run sequence first). */
import type { AnyTool } from "../tool.ts";
import {
  analyzeHotspots,
  getFrameCallees,
  getFrameCallers,
  getStackExamples,
  getTraceWindow,
} from "./analysis-tools.ts";
import { importArtifact } from "./import-tool.ts";
import {
  getArtifact,
  getEvidence,
  getRun,
  listArtifacts,
  listRuns,
  summarizeRuns,
} from "./record-tools.ts";
import { initializeWorkspace, validateWorkspace, workspaceStatus } from "./workspace-tools.ts";
import { CAPTURE_TOOLS } from "./capture-tools.ts";
import { configureWorkload, workloadConfigurationStatus } from "./workload-tools.ts";
import { STUDY_TOOLS } from "./study-tools.ts";
import { getLifecycleGaps, getOperationTransitions, getOperationWindow } from "./otel-tools.ts";
import { diffProfiles } from "./picture-tools.ts";
import { analyzeFailures } from "./failure-tools.ts";
import { analyzeCoverage } from "./coverage-tools.ts";
import { analyzeAcceleratorTimeline, analyzeOperators } from "./accelerator-tools.ts";

export const TOOLS: readonly AnyTool[] = [
  workspaceStatus,
  initializeWorkspace,
  // Declared workloads and capture through the broker (the one place processes start).
  workloadConfigurationStatus,
  configureWorkload,
  ...CAPTURE_TOOLS,
  importArtifact,
  listRuns,
  getRun,
  listArtifacts,
  getArtifact,
  analyzeHotspots,
  getFrameCallers,
  getFrameCallees,
  getStackExamples,
  getTraceWindow,
  diffProfiles,
  // OTLP lifecycle observations.
  getOperationWindow,
  getOperationTransitions,
  getLifecycleGaps,
  analyzeFailures,
  analyzeCoverage,
  analyzeAcceleratorTimeline,
  analyzeOperators,
  validateWorkspace,
  getEvidence,
  summarizeRuns,
  // Measurements, run sets, comparisons, experiments, scaling.
  ...STUDY_TOOLS,
];
