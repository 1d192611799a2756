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
import type { HotspotsResult } from "../analysis/hotspots.ts";
import type { SnapshotEngine } from "../analysis/snapshot-engine.ts";
import type { StackDirection, StacksResult } from "../analysis/stacks.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { TraceWindowResult } from "../analysis/trace-window.ts";
import type { GapsResult, OperationWindowResult, TransitionsResult } from "../analysis/otel-lifecycle.ts";
// Recipes load on first use: they bring apache-arrow and parquet-wasm, which commands
// such as `import` and `status` never need, and every CLI start would pay for them.
const hotspotsRecipe = () => import("../analysis/hotspots.ts");
const stacksRecipe = () => import("../analysis/stacks.ts");
const traceWindowRecipe = () => import("../analysis/trace-window.ts");
const otelRecipes = () => import("../analysis/otel-lifecycle.ts");
import { diffCatalog, projectCatalog, type CatalogDiff } from "../storage/catalog.ts";
import { readCommit, readHeadId } from "../storage/corpus-store.ts";
import { SnapshotHandle } from "../storage/snapshot.ts";
import { initWorkspace, locateWorkspace, openWorkspace, type Workspace, type WorkspaceIdentity } from "../storage/workspace.ts";
import { importArtifact, type ImportRequest, type ImportResult } from "./import-artifact.ts";
import { getEvidence, type EvidenceRefType, type EvidenceResult } from "./get-evidence.ts";
import { importWithinFence, type SourceRoot } from "./import-fence.ts";
import { validateWorkspace, type ValidationReport } from "./validate-workspace.ts";
import { type RunLogs, runLogs } from "./run-logs.ts";
import type { CaptureService } from "./capture/capture-service.ts";
import type { DiffRequest, ExportFormat, FlamegraphRequest } from "./profile-views.ts";

export interface Page<T> extends PageInfo {
  corpus_commit_id: string;
  items: T[];
}

export interface StatusResult {
  workspace: WorkspaceIdentity;
  corpus_commit_id: string;
  counts: { runs: number; artifacts: number; registrations: number; generations: number; quarantined: number };
  catalog: CatalogDiff & { in_sync: boolean };
  warnings: string[];
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
  private engine: SnapshotEngine | null = null;
  private captureService: CaptureService | null = null;

  constructor(ws: Workspace) {
    this.ws = ws;
  }

  /** Creates `.diagnostics/` under `root`, or reports the workspace already there. */
  static init(root: string): Promise<{ created: boolean; identity: WorkspaceIdentity }> {
    return initWorkspace(root);
  }

  /** Opens the workspace named explicitly, or the nearest one above `cwd`. */
  static async open(options: { workspace?: string; cwd?: string }): Promise<WorkspaceService> {
    const root = options.workspace ? resolve(options.workspace) : locateWorkspace(options.cwd ?? process.cwd());
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
    const inSync = diff.catalog_head === snapshot.commitId && diff.missing_generations.length === 0 && diff.extra_generations.length === 0;
    const warnings: string[] = [];
    if (!inSync) warnings.push("The catalog is behind HEAD; run `flameox catalog rebuild`");
    const running = count("SELECT count(*) AS n FROM runs WHERE capture_status = 'running' OR extraction_status = 'running'");
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
      warnings,
    };
  }

  importArtifact(request: ImportRequest): Promise<ImportResult> {
    return importArtifact(this.ws, request);
  }

  /** Imports only a path that passes the import fence (project root or system temp dir, no links). */
  importFenced(request: ImportRequest & { sourceRoot?: SourceRoot }): Promise<ImportResult> {
    return importWithinFence(this.ws.paths.projectRoot, request, (fenced) => this.importArtifact(fenced));
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
    const execution = run.run_type === "execution" ? (this.ws.runs.executionFields(runId) as NonNullable<RunDetail["execution"]>) : null;
    return { ...run, registrations: this.ws.artifacts.registrationsOfRun(runId), execution };
  }

  /** Workloads, capabilities, plans, captures and recovery; one per open workspace (it owns the plan registry). */
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

  /** The display names registered to each run (file names, stdout/stderr), for listings read by people. */
  runDisplayNames(runIds: readonly string[]): Record<string, string[]> {
    return Object.fromEntries(runIds.map((id) => [id, [...new Set(this.ws.artifacts.registrationsOfRun(id).map((r) => r.display_name))]]));
  }

  /** Up to `perArtifact` distinct display names each artifact was registered under. */
  artifactDisplayNames(artifactIds: readonly string[], perArtifact = 3): Record<string, string[]> {
    return Object.fromEntries(artifactIds.map((id) => [id, [...new Set(this.ws.artifacts.registrations(id, 20).map((r) => r.display_name))].slice(0, perArtifact)]));
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
      if ((g.tables.frame_measurements ?? 0) > 0) analyses.add("analyze_hotspots").add("get_frame_callers").add("get_frame_callees").add("get_stack_examples");
      if ((g.tables.trace_events ?? 0) > 0) analyses.add("get_trace_window");
      if ((g.tables.otel_spans ?? 0) > 0) analyses.add("get_operation_window").add("get_operation_transitions").add("get_lifecycle_gaps");
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

  async analyzeHotspots(ref: string, options: { limit?: number; cursor?: string | null; metric?: FrameMetric }): Promise<HotspotsResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    return (await hotspotsRecipe()).analyzeHotspots(snapshot, subject, { ...options, limit: this.limit(options.limit) });
  }

  async stacks(direction: StackDirection, ref: string, frameId: string, options: { limit?: number; cursor?: string | null; metric?: FrameMetric }): Promise<StacksResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, ref);
    const engine = await this.engineFor(snapshot);
    return (await stacksRecipe()).analyzeStacks(engine, engine.snapshot, subject, direction, { ...options, frameId, limit: this.limit(options.limit, direction === "examples" ? 20 : undefined) });
  }

  async traceWindow(artifactRef: string, options: { startNs: bigint; endNs: bigint; limit?: number; cursor?: string | null }): Promise<TraceWindowResult> {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactRef);
    if (subject.type !== "artifact") throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id for a trace window", { details: { field: "artifact_id" } });
    const engine = await this.engineFor(snapshot);
    return (await traceWindowRecipe()).traceWindow(engine, engine.snapshot, subject, { ...options, limit: this.limit(options.limit) });
  }

  /** OTLP: spans of a trace artifact overlapping [start, end] unix ns, optionally of one trace. */
  async operationWindow(artifactRef: string, options: { startNs: bigint; endNs: bigint; traceId?: string | null; limit?: number; cursor?: string | null }): Promise<OperationWindowResult> {
    const { engine, subject } = await this.otelSubject(artifactRef);
    return (await otelRecipes()).operationWindow(engine, engine.snapshot, subject, { ...options, traceId: options.traceId ?? null, limit: this.limit(options.limit) });
  }

  /** OTLP: parent→child span name transitions down to maxDepth. */
  async operationTransitions(artifactRef: string, options: { maxDepth?: number; traceId?: string | null; limit?: number; cursor?: string | null }): Promise<TransitionsResult> {
    const { engine, subject } = await this.otelSubject(artifactRef);
    const maxDepth = options.maxDepth ?? 8;
    if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 64) {
      throw new FlameoxError("INVALID_ARGUMENTS", `Expected max_depth to be an integer from 1 to 64 but found ${maxDepth}`, { details: { field: "max_depth" } });
    }
    return (await otelRecipes()).operationTransitions(engine, engine.snapshot, subject, { ...options, maxDepth, traceId: options.traceId ?? null, limit: this.limit(options.limit) });
  }

  /** OTLP: missing parents, bad timestamps and bad identities. */
  async lifecycleGaps(artifactRef: string, options: { limit?: number }): Promise<GapsResult> {
    const { engine, subject } = await this.otelSubject(artifactRef);
    return (await otelRecipes()).lifecycleGaps(engine, engine.snapshot, subject, { limit: this.limit(options.limit) });
  }

  private async otelSubject(artifactRef: string) {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactRef);
    if (subject.type !== "artifact") throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id of an OTLP trace", { details: { field: "artifact_id" } });
    return { engine: await this.engineFor(snapshot), subject };
  }

  /** A flamegraph (or differential flamegraph) page or SVG; the caller writes the bytes. */
  async flamegraph(request: FlamegraphRequest) {
    // Loaded on first use: the viewer scripts a page inlines are not needed by other commands.
    const { renderFlamegraph } = await import("./profile-views.ts");
    return renderFlamegraph(this.ws, this.pin(), request);
  }

  /** Registers a written flamegraph against the run it shows. */
  async registerPicture(subject: string, path: string, format: "html" | "svg") {
    const { registerPicture } = await import("./profile-views.ts");
    return registerPicture(this.ws, this.pin(), subject, path, format);
  }

  async diffProfiles(request: Omit<DiffRequest, "limit"> & { limit?: number }) {
    const { diffSubjects } = await import("./profile-views.ts");
    return diffSubjects(this.ws, this.pin(), { ...request, limit: this.limit(request.limit) });
  }

  async exportProfile(request: { subject: string; format: ExportFormat; metric?: FrameMetric }) {
    const { exportProfile } = await import("./profile-views.ts");
    return exportProfile(this.ws, this.pin(), request);
  }

  /** Copies an artifact's native bytes out of the store, verified against its digest. */
  async getArtifactBytes(ref: string, outputPath: string, options: { force: boolean }) {
    const subject = resolveSubject(this.ws, this.pin(), ref);
    if (subject.type !== "artifact") throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id (sha256:…) to copy bytes of", { details: { field: "artifact_id" } });
    const { copyArtifactBytes } = await import("./profile-views.ts");
    return copyArtifactBytes(this.ws, subject.id, outputPath, options);
  }

  validate(options: { full: boolean }): Promise<ValidationReport> {
    return validateWorkspace(this.ws, options);
  }

  catalogRebuild(): CatalogDiff & { rebuilt: boolean } {
    return this.ws.control.withWriteLock(() => {
      const commit = readCommit(this.ws.paths, readHeadId(this.ws.paths));
      projectCatalog(this.ws.control.db, commit);
      return { ...diffCatalog(this.ws.control.db, commit), rebuilt: true };
    });
  }

  catalogValidate(): CatalogDiff & { ok: boolean } {
    const diff = diffCatalog(this.ws.control.db, this.pin().commit);
    return { ...diff, ok: diff.catalog_head === diff.corpus_head && diff.missing_generations.length === 0 && diff.extra_generations.length === 0 };
  }

  /** One engine per pinned commit, reused while HEAD does not move (long-lived MCP server). */
  private async engineFor(snapshot: SnapshotHandle): Promise<SnapshotEngine> {
    if (this.engine && this.engine.snapshot.commitId === snapshot.commitId) return this.engine;
    this.engine?.close();
    // DuckDB-WASM is loaded only by the recipes that need an engine.
    const { SnapshotEngine } = await import("../analysis/snapshot-engine.ts");
    this.engine = await SnapshotEngine.open(snapshot);
    return this.engine;
  }

  private limit(limit: number | undefined, fallback?: number): number {
    return clampLimit(limit, fallback ?? this.ws.config.analysis.default_row_limit, this.ws.config.analysis.max_row_limit);
  }

  /** Changes whenever a row is added to or removed from the list's table. */
  private listRevision(table: "runs" | "artifacts"): string {
    const key = table === "runs" ? "run_id" : "artifact_id";
    const row = this.ws.control.db.query(`SELECT count(*) AS n, max(created_at || ' ' || ${key}) AS last FROM ${table}`).get() as { n: number; last: string | null };
    return digestOf({ table, n: row.n, last: row.last }).slice(7, 23);
  }

  private paginate<T>(query: string, table: "runs" | "artifacts", options: { limit?: number; cursor?: string | null }, fetch: (offset: number, limit: number) => { items: T[]; total: number }): Page<T> {
    const commitId = this.pin().commitId;
    // Control-plane lists are bound to the control plane's state of that list, not the
    // corpus: an import adds a run at the top, which would shift every later offset and
    // repeat items, so a cursor from before it is STALE_CURSOR.
    const binding = { query, filters: {}, commitId: this.listRevision(table), stateName: "control-plane revision" };
    const offset = decodeCursor(options.cursor, binding);
    const limit = this.limit(options.limit);
    const { items, total } = fetch(offset, limit);
    const end = offset + items.length;
    return { corpus_commit_id: commitId, items, total, returned: items.length, truncated: end < total, next_cursor: end < total ? encodeCursor(binding, end) : null };
  }
}
