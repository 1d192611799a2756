/**
 * Recipes over evidence other than profiles: test reports (failures), execution coverage
 * and GPU traces (accelerator timeline, operator breakdown), behind `flameox analyze
 * failures|coverage|accelerator|operators` and their MCP tools; and the digest of runs
 * behind `flameox summarize`. Each reads the workspace's
 * current pinned snapshot through the shared part cache; a recipe's module loads on first
 * use, since no other command needs it.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { FailuresResult } from "../analysis/failures/analyze-failures.ts";
import type { CoverageResult } from "../analysis/coverage/analyze-coverage.ts";
import type { AcceleratorResult } from "../analysis/accelerator/accelerator-timeline.ts";
import type { OperatorsResult } from "../analysis/accelerator/operator-breakdown.ts";
import type { PartCache } from "../analysis/evidence-parts.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";
import type { SummaryOptions, SummaryResult } from "./summarize-runs.ts";
import type { ComparisonSummary, ComparisonSummaryOptions } from "./summarize-comparison.ts";

const failuresRecipe = () => import("../analysis/failures/analyze-failures.ts");
const coverageRecipe = () => import("../analysis/coverage/analyze-coverage.ts");
const acceleratorRecipe = () => import("../analysis/accelerator/accelerator-timeline.ts");
const operatorsRecipe = () => import("../analysis/accelerator/operator-breakdown.ts");
const hotspotsRecipe = () => import("../analysis/hotspots.ts");
const summaryModule = () => import("./summarize-runs.ts");
const comparisonSummaryModule = () => import("./summarize-comparison.ts");
const diffModule = () => import("./profile-views.ts");
const comparisonsModule = () => import("./study/comparisons.ts");
/** Inputs one failures analysis compares (runs of a flaky hunt), bounded so a call stays small. */
const MAX_FAILURE_INPUTS = 50;

interface Page {
  limit?: number;
  cursor?: string | null;
}

export class EvidenceRecipesService {
  constructor(
    private readonly ws: Workspace,
    /** The snapshot each request reads: the workspace's HEAD at the time of the request. */
    private readonly pin: () => SnapshotHandle,
    /** A page size within the workspace's configured bounds. */
    private readonly limit: (requested: number | undefined) => number,
    /** The workspace's decoded-part cache (shared with the profile recipes). */
    private readonly parts: () => Promise<PartCache>,
  ) {}

  /**
   * Failure populations, clusters and flaky tests over the test reports of one or more runs or
   * artifacts.
   */
  async analyzeFailures(refs: readonly string[], options: Page): Promise<FailuresResult> {
    if (refs.length === 0)
      throw new FlameoxError("INVALID_ARGUMENTS", "Expected at least one run or artifact id", {
        details: { field: "run_or_artifact" },
      });
    if (refs.length > MAX_FAILURE_INPUTS)
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected at most ${MAX_FAILURE_INPUTS} runs or artifacts but found ${refs.length}`,
        { details: { field: "run_or_artifact" } },
      );
    const snapshot = this.pin();
    const subjects = refs.map((ref) => resolveSubject(this.ws, snapshot, ref));
    return (await failuresRecipe()).analyzeFailures(
      snapshot,
      subjects,
      { ...options, limit: this.limit(options.limit) },
      await this.parts(),
    );
  }

  /**
   * Lines executed per file of a run or artifact, and with a base, what it newly executes and no
   * longer executes.
   */
  async analyzeCoverage(
    ref: string,
    options: Page & { base?: string | null },
  ): Promise<CoverageResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    const base = options.base ? resolveSubject(this.ws, snapshot, options.base) : null;
    return (await coverageRecipe()).analyzeCoverage(
      snapshot,
      subject,
      base,
      { limit: this.limit(options.limit), cursor: options.cursor },
      await this.parts(),
    );
  }

  /** Device streams' busy time, idle gaps with host activity and launch latency of a GPU trace. */
  async analyzeAcceleratorTimeline(
    ref: string,
    options: Page & { minGapNs?: number },
  ): Promise<AcceleratorResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    return (await acceleratorRecipe()).analyzeAcceleratorTimeline(
      snapshot,
      subject,
      { ...options, limit: this.limit(options.limit) },
      await this.parts(),
    );
  }

  /**
   * Per torch.profiler operator: calls, CPU total and self time, GPU time of its launches (by
   * correlation id).
   */
  async analyzeOperators(ref: string, options: Page): Promise<OperatorsResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    return (await operatorsRecipe()).analyzeOperators(
      snapshot,
      subject,
      { ...options, limit: this.limit(options.limit) },
      await this.parts(),
    );
  }

  /**
   * A bounded digest of runs (artifacts, hotspots, measurements, limitations), all read at one
   * pinned commit.
   */
  async summarizeRuns(
    runIds: readonly string[],
    options: SummaryOptions = {},
  ): Promise<SummaryResult> {
    const snapshot = this.pin();
    const parts = await this.parts();
    const hotspots = await hotspotsRecipe();
    return (await summaryModule()).summarizeRuns(
      {
        ws: this.ws,
        snapshot,
        hotspots: (snap, subject, limit) =>
          hotspots.analyzeHotspots(snap, subject, { limit }, parts),
      },
      runIds,
      options,
    );
  }

  /**
   * What moved from a base run to a candidate run: the profile diff's top functions and the paired
   * comparison of each shared measurement, at one commit.
   */
  async summarizeComparison(
    base: string,
    candidate: string,
    options: ComparisonSummaryOptions = {},
  ): Promise<ComparisonSummary> {
    const snapshot = this.pin();
    const parts = await this.parts();
    const [hotspots, { diffSubjects }, { previewRunComparison }] = await Promise.all([
      hotspotsRecipe(),
      diffModule(),
      comparisonsModule(),
    ]);
    return (await comparisonSummaryModule()).summarizeComparison(
      {
        ws: this.ws,
        snapshot,
        hotspots: (snap, subject, limit) =>
          hotspots.analyzeHotspots(snap, subject, { limit }, parts),
        diff: (request) => diffSubjects(this.ws, snapshot, request),
        compare: (request) => previewRunComparison(this.ws, request, snapshot),
      },
      base,
      candidate,
      options,
    );
  }
}
