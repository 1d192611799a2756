/**
 * Application services over one open workspace: the single entry point the CLI and the
 * MCP server call. Transport-independent; every method returns a plain result model.
 * Read-only methods pin a snapshot and never take the write lock.
 */
import { digestOf } from "../domain/canonical-digest.ts";
import { resolve } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import type { ArtifactRecord, RegistrationRecord, RunRecord } from "../domain/records.ts";
import { clampLimit, type PageInfo } from "../analysis/analysis-result.ts";
import { decodeCursor, encodeCursor } from "../analysis/cursor.ts";
import type { Granularity } from "../analysis/pictures/frame-identity.ts";
import type { HotspotsResult } from "../analysis/hotspots.ts";
import type { EvidenceEngine, EngineStats } from "../analysis/evidence-engine.ts";
import type { PartCache, PartCacheStats } from "../analysis/evidence-parts.ts";
import type { StackDirection, StacksResult } from "../analysis/stacks.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { TraceWindowResult } from "../analysis/trace-window.ts";
import type {
  GapsResult,
  OperationWindowResult,
  TransitionsResult,
} from "../analysis/otel-lifecycle.ts";
// Recipes load on first use: they bring apache-arrow and parquet-wasm, which commands
// such as `import` and `status` never need, and every CLI start would pay for them.
const hotspotsRecipe = () => import("../analysis/hotspots.ts");
const stacksRecipe = () => import("../analysis/stacks.ts");
const traceWindowRecipe = () => import("../analysis/trace-window.ts");
const otelRecipes = () => import("../analysis/otel-lifecycle.ts");
const partsModule = () => import("../analysis/evidence-parts.ts");
const companionsModule = () => import("./import-companions.ts");
const engineModule = () => import("../analysis/evidence-engine.ts");
import {
  catalogInSync,
  diffCatalog,
  projectCatalog,
  type CatalogDiff,
} from "../storage/catalog.ts";
import { lastLoggedHead, recordHead } from "../storage/head-log.ts";
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
import { chainProblems, checkCorpusChain } from "./corpus-chain-check.ts";
import { rebuildControlPlaneFromCorpus, type RebuildResult } from "./rebuild-control-plane.ts";
import type { CaptureService } from "./capture/capture-service.ts";
import { ProfileViewsService } from "./profile-views-service.ts";
import { EvidenceRecipesService } from "./evidence-recipes-service.ts";

export interface Page<T> extends PageInfo {
  corpus_commit_id: string;
  items: T[];
}

export interface StatusResult {
  workspace: WorkspaceIdentity;
  corpus_commit_id: string;
  counts: {
    runs: number;
    artifacts: number;
    registrations: number;
    generations: number;
    quarantined: number;
  };
  catalog: CatalogDiff & { in_sync: boolean };
  /** What this process keeps decoded between analyses, against its memory budget. */
  analysis_cache: AnalysisCacheStatus;
  control_plane: { quick_check: string; last_published_head: string | null };
  warnings: string[];
}

export interface AnalysisCacheStatus {
  budget_bytes: number;
  parts: PartCacheStats;
  engine: EngineStats;
}

export interface RunDetail extends RunRecord {
  registrations: RegistrationRecord[];
  /** Execution runs: workload, execution document and identities; null for imports. */
  execution: {
    workload: Record<string, unknown> | null;
    execution: Record<string, unknown> | null;
    source_identity: Record<string, unknown> | null;
    environment_identity: Record<string, unknown> | null;
  } | null;
}

/** Registrations shown inline with an artifact; the rest are counted, never dumped. */
const INLINE_REGISTRATIONS = 20;

export interface ArtifactDetail extends ArtifactRecord {
  /** The first registrations (oldest first); `registration_count` is the total. */
  registrations: RegistrationRecord[];
  registrations_truncated: boolean;
  generation_ids: string[];
  supported_analyses: string[];
  resource_uri: string;
}

export class WorkspaceService {
  readonly ws: Workspace;
  /**
   * Decoded evidence parts and the SQL engine's generation tables, kept across calls and
   * commits (both are immutable per generation); each gets half the analysis cache budget.
   */
  private parts: PartCache | null = null;
  private engine: EvidenceEngine | null = null;
  private captureService: CaptureService | null = null;
  private profileViews: ProfileViewsService | null = null;
  private evidenceRecipes: EvidenceRecipesService | null = null;

  constructor(ws: Workspace) {
    this.ws = ws;
  }

  // Made on first use: both bring apache-arrow and parquet-wasm, which commands such as
  // `import` and `status` never need.
  private async partCache(): Promise<PartCache> {
    if (!this.parts) {
      const { PartCache } = await partsModule();
      this.parts ??= new PartCache(Math.floor(this.cacheBudget() / 2));
    }
    return this.parts;
  }

  private async evidenceEngine(): Promise<EvidenceEngine> {
    if (!this.engine) {
      const { EvidenceEngine } = await engineModule();
      this.engine ??= new EvidenceEngine({ budgetBytes: Math.floor(this.cacheBudget() / 2) });
    }
    return this.engine;
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
    this.engine?.close();
    this.ws.close();
  }

  pin(): SnapshotHandle {
    return SnapshotHandle.pin(this.ws.paths);
  }

  status(): StatusResult {
    const snapshot = this.pin();
    const count = (sql: string) => (this.ws.control.db.query(sql).get() as { n: number }).n;
    const diff = diffCatalog(this.ws.control.db, snapshot.commit);
    const quickCheck = (
      this.ws.control.db.query("PRAGMA quick_check").get() as { quick_check: string }
    ).quick_check;
    const lastPublished = lastLoggedHead(this.ws.control.db)?.commit_id ?? null;
    // In sync means the control plane is sound and projects HEAD, and HEAD is what it last
    // published.
    const inSync =
      quickCheck === "ok" &&
      catalogInSync(diff, snapshot.commit) &&
      (lastPublished === null || lastPublished === snapshot.commitId);
    const warnings: string[] = [];
    if (quickCheck !== "ok")
      warnings.push(
        `The control plane fails SQLite quick_check (${quickCheck.slice(0, 200)}); run \`flameox validate\``,
      );
    else if (lastPublished !== null && lastPublished !== snapshot.commitId)
      warnings.push(
        "HEAD is not the newest HEAD the control plane published; run `flameox validate`",
      );
    else if (!inSync) warnings.push("The catalog is behind HEAD; run `flameox catalog rebuild`");
    const running = count(
      "SELECT count(*) AS n FROM runs WHERE capture_status = 'running' OR extraction_status = 'running'",
    );
    if (running > 0) warnings.push(`${running} run(s) are marked running`);
    return {
      workspace: this.ws.identity,
      corpus_commit_id: snapshot.commitId,
      counts: {
        runs: count("SELECT count(*) AS n FROM runs"),
        artifacts: count("SELECT count(*) AS n FROM artifacts"),
        registrations: count("SELECT count(*) AS n FROM registrations"),
        generations: snapshot.commit.generations.length,
        quarantined: count("SELECT count(*) AS n FROM quarantine"),
      },
      catalog: { ...diff, in_sync: inSync },
      analysis_cache: this.cacheStatus(),
      control_plane: { quick_check: quickCheck, last_published_head: lastPublished },
      warnings,
    };
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
        `${request.path} lies outside the project root and the system temp directory, so nothing it declares is read`,
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
    const run = this.ws.runs.get(runId);
    const execution =
      run.run_type === "execution"
        ? (this.ws.runs.executionFields(runId) as NonNullable<RunDetail["execution"]>)
        : null;
    return { ...run, registrations: this.ws.artifacts.registrationsOfRun(runId), execution };
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
    return Object.fromEntries(
      runIds.map((id) => [
        id,
        [...new Set(this.ws.artifacts.registrationsOfRun(id).map((r) => r.display_name))],
      ]),
    );
  }

  /** Up to `perArtifact` distinct display names each artifact was registered under. */
  artifactDisplayNames(artifactIds: readonly string[], perArtifact = 3): Record<string, string[]> {
    return Object.fromEntries(
      artifactIds.map((id) => [
        id,
        [...new Set(this.ws.artifacts.registrations(id, 20).map((r) => r.display_name))].slice(
          0,
          perArtifact,
        ),
      ]),
    );
  }

  /** The stdout and stderr a capture stored for a run. */
  runLogs(runId: string, options: { stream?: string; maxBytes?: number } = {}): RunLogs {
    return runLogs(this.ws, runId, options);
  }

  getArtifact(artifactId: string): ArtifactDetail {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactId);
    const artifact = this.ws.artifacts.get(subject.id);
    const generations = subject.generations;
    const analyses = new Set<string>();
    for (const g of generations) {
      if ((g.tables.frame_measurements ?? 0) > 0)
        analyses
          .add("analyze_hotspots")
          .add("get_frame_callers")
          .add("get_frame_callees")
          .add("get_stack_examples");
      if ((g.tables.trace_events ?? 0) > 0) analyses.add("get_trace_window");
      if ((g.tables.test_results ?? 0) > 0) analyses.add("analyze_failures");
      if ((g.tables.coverage_lines ?? 0) > 0) analyses.add("analyze_coverage");
      if ((g.tables.otel_spans ?? 0) > 0)
        analyses
          .add("get_operation_window")
          .add("get_operation_transitions")
          .add("get_lifecycle_gaps");
    }
    return {
      ...artifact,
      registrations: this.ws.artifacts.registrations(subject.id, INLINE_REGISTRATIONS),
      registrations_truncated: artifact.registration_count > INLINE_REGISTRATIONS,
      generation_ids: generations.map((g) => g.generation_id),
      supported_analyses: [...analyses],
      resource_uri: `flameox://artifacts/${encodeURIComponent(subject.id)}`,
    };
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
      await this.partCache(),
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
      await this.partCache(),
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
      await this.partCache(),
    );
  }

  /** OTLP: spans of a trace artifact overlapping [start, end] unix ns, optionally of one trace. */
  async operationWindow(
    artifactRef: string,
    options: {
      startNs: bigint;
      endNs: bigint;
      traceId?: string | null;
      limit?: number;
      cursor?: string | null;
    },
  ): Promise<OperationWindowResult> {
    const { snapshot, subject } = this.otelSubject(artifactRef);
    return (await otelRecipes()).operationWindow(await this.evidenceEngine(), snapshot, subject, {
      ...options,
      traceId: options.traceId ?? null,
      limit: this.limit(options.limit),
    });
  }

  /** OTLP: parent→child span name transitions down to maxDepth. */
  async operationTransitions(
    artifactRef: string,
    options: { maxDepth?: number; traceId?: string | null; limit?: number; cursor?: string | null },
  ): Promise<TransitionsResult> {
    const { snapshot, subject } = this.otelSubject(artifactRef);
    const maxDepth = options.maxDepth ?? 8;
    if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 64) {
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected max_depth to be an integer from 1 to 64 but found ${maxDepth}`,
        { details: { field: "max_depth" } },
      );
    }
    return (await otelRecipes()).operationTransitions(
      await this.evidenceEngine(),
      snapshot,
      subject,
      { ...options, maxDepth, traceId: options.traceId ?? null, limit: this.limit(options.limit) },
    );
  }

  /** OTLP: missing parents, bad timestamps and bad identities. */
  async lifecycleGaps(artifactRef: string, options: { limit?: number }): Promise<GapsResult> {
    const { snapshot, subject } = this.otelSubject(artifactRef);
    return (await otelRecipes()).lifecycleGaps(await this.evidenceEngine(), snapshot, subject, {
      limit: this.limit(options.limit),
    });
  }

  private otelSubject(artifactRef: string) {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactRef);
    if (subject.type !== "artifact")
      throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id of an OTLP trace", {
        details: { field: "artifact_id" },
      });
    return { snapshot, subject };
  }

  /**
   * Pictures, diffs, exports and artifact bytes (profile-views-service.ts); one per open workspace.
   */
  /** Failures, coverage, accelerator timeline, operator breakdown and run digests. */
  recipes(): EvidenceRecipesService {
    this.evidenceRecipes ??= new EvidenceRecipesService(
      this.ws,
      () => this.pin(),
      (limit) => this.limit(limit),
      () => this.partCache(),
    );
    return this.evidenceRecipes;
  }

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
   * Rebuilds the catalog from HEAD, only when HEAD and the control plane agree: a catalog
   * projected over a rolled-back HEAD or a control plane that lost rows would bless them.
   */
  catalogRebuild(): CatalogDiff & { rebuilt: boolean } {
    return this.ws.control.withWriteLock(() => {
      const report = checkCorpusChain(this.ws);
      const problems = chainProblems(report);
      if (problems.length > 0) {
        throw new FlameoxError(
          "CORPUS_INTEGRITY_FAILED",
          `Cannot rebuild the catalog: ${problems.join("; ")}`,
          {
            remediation: [
              "Run `flameox validate` for the details",
              "Run `flameox recover --rebuild-from-corpus` to restore the control plane from the corpus",
            ],
          },
        );
      }
      const commit = report.chain[0]!;
      recordHead(this.ws.control.db, commit);
      projectCatalog(this.ws.control.db, commit);
      return { ...diffCatalog(this.ws.control.db, commit), rebuilt: true };
    });
  }

  /**
   * Restores lost control-plane rows and a rolled-back HEAD from the corpus (see
   * rebuild-control-plane.ts).
   */
  rebuildFromCorpus(): RebuildResult {
    return rebuildControlPlaneFromCorpus(this.ws);
  }

  catalogValidate(): CatalogDiff & { ok: boolean } {
    const commit = this.pin().commit;
    const diff = diffCatalog(this.ws.control.db, commit);
    return { ...diff, ok: catalogInSync(diff, commit) };
  }

  /** The analysis cache of this process: budget, decoded parts and engine tables. */
  cacheStatus(): AnalysisCacheStatus {
    const budget = this.cacheBudget();
    return {
      budget_bytes: budget,
      parts: this.parts?.stats() ?? {
        budget_bytes: Math.floor(budget / 2),
        bytes: 0,
        parts: 0,
        loads: 0,
        hits: 0,
        evictions: 0,
      },
      engine: this.engine?.stats() ?? {
        open: false,
        budget_bytes: Math.floor(budget / 2),
        bytes: 0,
        tables: 0,
        loads: 0,
        evictions: 0,
        starts: 0,
      },
    };
  }

  /**
   * Which generations' tables the readers have decoded, oldest first (each load once while cached).
   */
  partLoads(): readonly { generation_id: string; table: string }[] {
    return this.parts?.loads() ?? [];
  }

  private cacheBudget(): number {
    return this.ws.config.analysis.cache_budget_mb * 2 ** 20;
  }

  private limit(limit: number | undefined, fallback?: number): number {
    return clampLimit(
      limit,
      fallback ?? this.ws.config.analysis.default_row_limit,
      this.ws.config.analysis.max_row_limit,
    );
  }

  /** Changes whenever a row is added to or removed from the list's table. */
  private listRevision(table: "runs" | "artifacts"): string {
    const key = table === "runs" ? "run_id" : "artifact_id";
    const row = this.ws.control.db
      .query(`SELECT count(*) AS n, max(created_at || ' ' || ${key}) AS last FROM ${table}`)
      .get() as { n: number; last: string | null };
    return digestOf({ table, n: row.n, last: row.last }).slice(7, 23);
  }

  private paginate<T>(
    query: string,
    table: "runs" | "artifacts",
    options: { limit?: number; cursor?: string | null },
    fetch: (offset: number, limit: number) => { items: T[]; total: number },
  ): Page<T> {
    const commitId = this.pin().commitId;
    // Control-plane lists are bound to the control plane's state of that list, not the
    // corpus: an import adds a run at the top, which would shift every later offset and
    // repeat items, so a cursor from before it is STALE_CURSOR.
    const binding = {
      query,
      filters: {},
      commitId: this.listRevision(table),
      stateName: "control-plane revision",
    };
    const offset = decodeCursor(options.cursor, binding);
    const limit = this.limit(options.limit);
    const { items, total } = fetch(offset, limit);
    const end = offset + items.length;
    return {
      corpus_commit_id: commitId,
      items,
      total,
      returned: items.length,
      truncated: end < total,
      next_cursor: end < total ? encodeCursor(binding, end) : null,
    };
  }
}
