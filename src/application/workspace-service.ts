/**
 * Application services over one open workspace: the single entry point the CLI and the
 * MCP server call. Transport-independent; every method returns a plain result model.
 * Read-only methods pin a snapshot and never take the write lock.
 */
import { resolve } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { ArtifactRecord, RunRecord } from "../domain/records.ts";
import { clampLimit } from "../analysis/analysis-result.ts";
import type { Granularity } from "../analysis/pictures/frame-identity.ts";
import type { HotspotsResult } from "../analysis/hotspots.ts";
import type { StackDirection, StacksResult } from "../analysis/stacks.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { TraceWindowResult } from "../analysis/trace-window.ts";
// Recipes load on first use: they bring apache-arrow and parquet-wasm, which commands
// such as `import` and `status` never need, and every CLI start would pay for them.
const hotspotsRecipe = () => import("../analysis/hotspots.ts");
const stacksRecipe = () => import("../analysis/stacks.ts");
const traceWindowRecipe = () => import("../analysis/trace-window.ts");
const companionsModule = () => import("./import-companions.ts");
import { SnapshotHandle } from "../storage/snapshot.ts";
import {
  initWorkspace,
  locateWorkspace,
  openWorkspace,
  type Workspace,
  type WorkspaceIdentity,
} from "../storage/workspace.ts";
import { importArtifact, type ImportRequest } from "./import-artifact.ts";
import { getEvidence, type EvidenceRefType, type EvidenceResult } from "./get-evidence.ts";
import { importWithinFence, type SourceRoot } from "./import-fence.ts";
import type { ImportWithCompanions } from "./import-companions.ts";
import { validateWorkspace, type ValidationReport } from "./validate-workspace.ts";
import { type RunLogs, runLogs } from "./run-logs.ts";
import { rebuildControlPlaneFromCorpus, type RebuildResult } from "./rebuild-control-plane.ts";
import type { CaptureService } from "./capture/capture-service.ts";
import { ProfileViewsService } from "./profile-views-service.ts";
import { EvidenceRecipesService } from "./evidence-recipes-service.ts";
import { OperationAnalyses } from "./operation-analyses.ts";
import { AnalysisCache, type AnalysisCacheStatus } from "./analysis-cache.ts";
import { rebuildCatalog, validateCatalog } from "./catalog-maintenance.ts";
import {
  artifactDetail,
  artifactDisplayNames,
  runDetail,
  runDisplayNames,
  type ArtifactDetail,
  type RunDetail,
} from "./record-details.ts";
import { controlPlanePage, type ListTable, type Page } from "./record-pages.ts";
import { workspaceStatus, type StatusResult } from "./workspace-status.ts";
import type { CatalogDiff } from "../storage/catalog.ts";

export class WorkspaceService {
  readonly ws: Workspace;
  /** Decoded evidence parts and the SQL engine's tables, kept across calls and commits. */
  private readonly cache: AnalysisCache;
  private captureService: CaptureService | null = null;
  private profileViews: ProfileViewsService | null = null;
  private evidenceRecipes: EvidenceRecipesService | null = null;
  private operationAnalyses: OperationAnalyses | null = null;

  constructor(ws: Workspace) {
    this.ws = ws;
    this.cache = new AnalysisCache(() => this.ws.config.analysis.cache_budget_mb * 2 ** 20);
  }

  /** Creates `.diagnostics/` under `root`, or reports the workspace already there. */
  static init(root: string): Promise<{ created: boolean; identity: WorkspaceIdentity }> {
    return initWorkspace(root);
  }

  /** Opens the workspace named explicitly, or the nearest one above `cwd`. */
  static async open(options: { workspace?: string; cwd?: string }): Promise<WorkspaceService> {
    const root = options.workspace
      ? resolve(options.workspace)
      : locateWorkspace(options.cwd ?? process.cwd());
    return new WorkspaceService(await openWorkspace(root));
  }

  close(): void {
    this.cache.close();
    this.ws.close();
  }

  pin(): SnapshotHandle {
    return SnapshotHandle.pin(this.ws.paths);
  }

  status(): StatusResult {
    return workspaceStatus(this.ws, this.pin(), this.cacheStatus());
  }

  /**
   * Imports a path named on the command line. Files it declares beside itself (NVBench
   * sidecars) are read only through the import fence, from below the root it lies under.
   */
  async importArtifact(request: ImportRequest): Promise<ImportWithCompanions> {
    const result = await importArtifact(this.ws, request);
    if (result.extraction.companions.length === 0) return result;
    const companions = await companionsModule();
    const place = companions.placeOfPath(this.ws.paths.projectRoot, request.path);
    if (place === null)
      return companions.refuseCompanions(
        this.ws,
        result,
        `${request.path} lies outside the project root and the system temp directory, so ` +
          `nothing it declares is read`,
      );
    return companions.importCompanions(this.ws, result, {
      projectRoot: this.ws.paths.projectRoot,
      ...place,
      sensitivity: request.sensitivity ?? "normal",
      signal: request.signal,
    });
  }

  /**
   * Imports only a path that passes the import fence (project root or system temp dir, no links);
   * so must every file it declares.
   */
  importFenced(
    request: ImportRequest & { sourceRoot?: SourceRoot },
  ): Promise<ImportWithCompanions> {
    const sourceRoot = request.sourceRoot ?? "project";
    return importWithinFence(this.ws.paths.projectRoot, request, async (fenced, displayPath) => {
      const result = await importArtifact(this.ws, fenced);
      if (result.extraction.companions.length === 0) return result;
      const { importCompanions } = await companionsModule();
      return importCompanions(this.ws, result, {
        projectRoot: this.ws.paths.projectRoot,
        sourceRoot,
        displayPath,
        sensitivity: request.sensitivity ?? "normal",
        signal: request.signal,
      });
    });
  }

  getEvidence(refType: EvidenceRefType, refId: string): EvidenceResult {
    return getEvidence(this.ws, this.pin(), refType, refId);
  }

  listRuns(options: { limit?: number; cursor?: string | null }): Page<RunRecord> {
    return this.paginate("runs.list", "runs", options, (offset, limit) => {
      const all = this.ws.runs.list(offset + limit);
      return { items: all.runs.slice(offset), total: all.total };
    });
  }

  getRun(runId: string): RunDetail {
    return runDetail(this.ws, runId);
  }

  /**
   * Workloads, capabilities, plans, captures and recovery; one per open workspace (it owns the plan
   * registry).
   */
  async capture(): Promise<CaptureService> {
    // Loaded on first use: the capture stack (schemas, resolver, sampler) is not needed by
    // imports and analyses, and loading it would slow every CLI start.
    const { CaptureService } = await import("./capture/capture-service.ts");
    this.captureService ??= new CaptureService(this.ws);
    return this.captureService;
  }

  listArtifacts(options: { limit?: number; cursor?: string | null }): Page<ArtifactRecord> {
    return this.paginate("artifacts.list", "artifacts", options, (offset, limit) => {
      const all = this.ws.artifacts.list(offset + limit);
      return { items: all.artifacts.slice(offset), total: all.total };
    });
  }

  /**
   * The display names registered to each run (file names, stdout/stderr), for listings read by
   * people.
   */
  runDisplayNames(runIds: readonly string[]): Record<string, string[]> {
    return runDisplayNames(this.ws, runIds);
  }

  /** Up to `perArtifact` distinct display names each artifact was registered under. */
  artifactDisplayNames(artifactIds: readonly string[], perArtifact = 3): Record<string, string[]> {
    return artifactDisplayNames(this.ws, artifactIds, perArtifact);
  }

  /** The stdout and stderr a capture stored for a run. */
  runLogs(runId: string, options: { stream?: string; maxBytes?: number } = {}): RunLogs {
    return runLogs(this.ws, runId, options);
  }

  getArtifact(artifactId: string): ArtifactDetail {
    return artifactDetail(this.ws, this.pin(), artifactId);
  }

  async analyzeHotspots(
    ref: string,
    options: {
      limit?: number;
      cursor?: string | null;
      metric?: FrameMetric;
      granularity?: Granularity;
      excludePseudoFrames?: boolean;
    },
  ): Promise<HotspotsResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    return (await hotspotsRecipe()).analyzeHotspots(
      snapshot,
      subject,
      { ...options, limit: this.limit(options.limit) },
      await this.cache.partCache(),
    );
  }

  async stacks(
    direction: StackDirection,
    ref: string,
    frameId: string,
    options: {
      limit?: number;
      cursor?: string | null;
      metric?: FrameMetric;
      granularity?: Granularity;
    },
  ): Promise<StacksResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    return (await stacksRecipe()).analyzeStacks(
      snapshot,
      subject,
      direction,
      {
        ...options,
        frameId,
        limit: this.limit(options.limit, direction === "examples" ? 20 : undefined),
      },
      await this.cache.partCache(),
    );
  }

  async traceWindow(
    artifactRef: string,
    options: { startNs: bigint; endNs: bigint; limit?: number; cursor?: string | null },
  ): Promise<TraceWindowResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactRef);
    if (subject.type !== "artifact")
      throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id for a trace window", {
        details: { field: "artifact_id" },
      });
    return (await traceWindowRecipe()).traceWindow(
      snapshot,
      subject,
      { ...options, limit: this.limit(options.limit) },
      await this.cache.partCache(),
    );
  }

  /** OTLP operation windows, transitions and lifecycle gaps (operation-analyses.ts). */
  operations(): OperationAnalyses {
    this.operationAnalyses ??= new OperationAnalyses(
      this.ws,
      () => this.pin(),
      (limit) => this.limit(limit),
      () => this.cache.evidenceEngine(),
    );
    return this.operationAnalyses;
  }

  /** Failures, coverage, accelerator timeline, operator breakdown and run digests. */
  recipes(): EvidenceRecipesService {
    this.evidenceRecipes ??= new EvidenceRecipesService(
      this.ws,
      () => this.pin(),
      (limit) => this.limit(limit),
      () => this.cache.partCache(),
    );
    return this.evidenceRecipes;
  }

  /**
   * Pictures, diffs, exports and artifact bytes (profile-views-service.ts); one per open workspace.
   */
  views(): ProfileViewsService {
    this.profileViews ??= new ProfileViewsService(
      this.ws,
      () => this.pin(),
      (limit) => this.limit(limit),
    );
    return this.profileViews;
  }

  validate(options: { full: boolean }): Promise<ValidationReport> {
    return validateWorkspace(this.ws, options);
  }

  /**
   * Rebuilds the catalog from HEAD when HEAD and the control plane agree
   * (catalog-maintenance.ts).
   */
  catalogRebuild(): CatalogDiff & { rebuilt: boolean } {
    return rebuildCatalog(this.ws);
  }

  /**
   * Restores lost control-plane rows and a rolled-back HEAD from the corpus (see
   * rebuild-control-plane.ts).
   */
  rebuildFromCorpus(): RebuildResult {
    return rebuildControlPlaneFromCorpus(this.ws);
  }

  catalogValidate(): CatalogDiff & { ok: boolean } {
    return validateCatalog(this.ws, this.pin().commit);
  }

  /** The analysis cache of this process: budget, decoded parts and engine tables. */
  cacheStatus(): AnalysisCacheStatus {
    return this.cache.status();
  }

  /**
   * Which generations' tables the readers have decoded, oldest first (each load once while cached).
   */
  partLoads(): readonly { generation_id: string; table: string }[] {
    return this.cache.partLoads();
  }

  private limit(limit: number | undefined, fallback?: number): number {
    return clampLimit(
      limit,
      fallback ?? this.ws.config.analysis.default_row_limit,
      this.ws.config.analysis.max_row_limit,
    );
  }

  private paginate<T>(
    query: string,
    table: ListTable,
    options: { limit?: number; cursor?: string | null },
    fetch: (offset: number, limit: number) => { items: T[]; total: number },
  ): Page<T> {
    const commitId = this.pin().commitId;
    const page = { query, table, commitId, limit: this.limit(options.limit) };
    return controlPlanePage(this.ws, page, options.cursor, fetch);
  }
}
