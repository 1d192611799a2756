/**
 * The study use cases behind one façade shared by the CLI and the MCP server:
 * measurements, run sets, comparisons, experiments and scaling. Read-only methods pin a
 * snapshot and never take the write lock.
 */
import type {
  CompareRequest,
  ComparisonResult,
} from "../../analysis/comparison/compare-run-sets.ts";
import { clampLimit } from "../../analysis/analysis-result.ts";
import { decodeCursor, encodeCursor } from "../../analysis/cursor.ts";
import {
  queryMeasurements,
  type MeasurementsPage,
} from "../../analysis/measurements/query-measurements.ts";
import type { ScalingResult } from "../../analysis/scaling.ts";
import type { RunSetRecord } from "../../domain/run-set.ts";
import type { TrialRecord } from "../../domain/experiment/trial.ts";
import { SnapshotHandle } from "../../storage/snapshot.ts";
import type { Workspace } from "../../storage/workspace.ts";
import {
  getComparison,
  previewComparison,
  previewRunComparison,
  previewScopeComparison,
  recordComparison,
  type RecordedComparison,
  type RunComparisonRequest,
  type ScopeComparisonRequest,
} from "./comparisons.ts";
import type { CaptureContext } from "../capture/capture-context.ts";
import type { ExperimentPlan, PlanExperimentRequest } from "./experiment-protocol.ts";
import { getExperiment, listTrials, type ExperimentRecord } from "./experiment-record.ts";
import { freezeRunSet, getRunSet, type FreezeRunSetRequest } from "./run-sets.ts";
import { scalingOfExperiment } from "./scaling.ts";

export interface TrialPage {
  experiment_id: string;
  items: TrialRecord[];
  total: number;
  returned: number;
  truncated: boolean;
  next_cursor: string | null;
}

export class StudyService {
  private captureContext: CaptureContext | null = null;

  constructor(readonly ws: Workspace) {}

  queryMeasurements(q: {
    runId?: string;
    artifactId?: string;
    namePrefix?: string;
    includeWarmups?: boolean;
    limit?: number;
    cursor?: string | null;
  }): Promise<MeasurementsPage> {
    return queryMeasurements(SnapshotHandle.pin(this.ws.paths), {
      ...q,
      limit: this.limit(q.limit),
    });
  }

  freezeRunSet(request: FreezeRunSetRequest): RunSetRecord {
    return freezeRunSet(this.ws, request);
  }

  getRunSet(id: string): RunSetRecord {
    return getRunSet(this.ws, id);
  }

  compare(request: CompareRequest): Promise<ComparisonResult> {
    return previewComparison(this.ws, request);
  }

  /** Two benchmarks (scopes) of one imported run, e.g. the commands of one hyperfine file. */
  compareScopes(request: ScopeComparisonRequest): Promise<ComparisonResult> {
    return previewScopeComparison(this.ws, request);
  }

  /**
   * One metric of two single runs (a benchmark imported before and after a change), samples paired
   * by position.
   */
  compareRuns(request: RunComparisonRequest): Promise<ComparisonResult> {
    return previewRunComparison(this.ws, request);
  }

  recordComparison(request: CompareRequest): Promise<RecordedComparison> {
    return recordComparison(this.ws, request);
  }

  getComparison(id: string): RecordedComparison {
    return getComparison(this.ws, id);
  }

  /**
   * Binds the protocol and one capture plan per workload instance behind a single-use token; runs
   * nothing.
   */
  async planExperiment(request: PlanExperimentRequest): Promise<ExperimentPlan> {
    const { planExperiment } = await import("./experiment-protocol.ts");
    return planExperiment(await this.capture(), request);
  }

  /**
   * Consumes the plan token (atomically), rechecks every capture binding before anything is
   * recorded, then runs every cell.
   */
  async runPlannedExperiment(
    planId: string,
    options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<ExperimentRecord> {
    const [{ experimentPlans }, { recheckPlan }, { CaptureTrialExecutor }, { runExperiment }] =
      await Promise.all([
        import("./experiment-protocol.ts"),
        import("../capture/recheck-plan.ts"),
        import("./capture-trial-executor.ts"),
        import("./run-experiment.ts"),
      ]);
    const binding = experimentPlans.consume(planId);
    const ctx = await this.capture();
    for (const plan of Object.values(binding.captures)) await recheckPlan(ctx, plan);
    return runExperiment(
      this.ws,
      binding.protocol,
      new CaptureTrialExecutor(ctx, binding.captures),
      options,
    );
  }

  getExperiment(id: string): ExperimentRecord {
    return getExperiment(this.ws, id);
  }

  listTrials(experimentId: string, options: { limit?: number; cursor?: string | null }): TrialPage {
    const binding = {
      query: "experiments.trials",
      filters: { experiment_id: experimentId },
      commitId: "control",
    };
    const offset = decodeCursor(options.cursor, binding);
    const { items, total } = listTrials(this.ws, experimentId, this.limit(options.limit), offset);
    const end = offset + items.length;
    return {
      experiment_id: experimentId,
      items,
      total,
      returned: items.length,
      truncated: end < total,
      next_cursor: end < total ? encodeCursor(binding, end) : null,
    };
  }

  scaling(experimentId: string): Promise<ScalingResult> {
    return scalingOfExperiment(this.ws, experimentId);
  }

  /** The capture stack loads on first use, so reads and comparisons never pay for it. */
  private async capture(): Promise<CaptureContext> {
    if (!this.captureContext) {
      const { createCaptureContext } = await import("../capture/capture-context.ts");
      this.captureContext = createCaptureContext(this.ws);
    }
    return this.captureContext;
  }

  private limit(limit: number | undefined): number {
    return clampLimit(
      limit,
      this.ws.config.analysis.default_row_limit,
      this.ws.config.analysis.max_row_limit,
    );
  }
}
