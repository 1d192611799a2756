/** Every tool, in the fixed order tools/list reports them (the first-run sequence first). */
import type { AnyTool } from "../tool.ts";
import { analyzeHotspots, getFrameCallees, getFrameCallers, getStackExamples, getTraceWindow } from "./analysis-tools.ts";
import { importArtifact } from "./import-tool.ts";
import { getArtifact, getEvidence, getRun, listArtifacts, listRuns } from "./record-tools.ts";
import { initializeWorkspace, validateWorkspace, workspaceStatus } from "./workspace-tools.ts";

export const TOOLS: readonly AnyTool[] = [
  workspaceStatus,
  initializeWorkspace,
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
  validateWorkspace,
  getEvidence,
];
