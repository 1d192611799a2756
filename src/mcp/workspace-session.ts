/**
 * The server's one workspace. The project root is fixed when the server starts; the
 * workspace is opened lazily on the first call that needs it (so `initialize_workspace`
 * after start works) and then kept open, because the service caches decoded evidence (and
 * the SQL engine's tables) across calls and commits.
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import type { WorkspaceService } from "../application/workspace-service.ts";
import { warmDecoder } from "../application/decoder-warmup.ts";

// The services load with the first call that needs them, not before the server answers
// `initialize`.
const services = () =>
  import("../application/workspace-service.ts").then((m) => m.WorkspaceService);

export class WorkspaceSession {
  readonly root: string;
  private service: WorkspaceService | null = null;
  private opening: Promise<WorkspaceService> | null = null;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(projectRoot: string) {
    this.root = resolve(projectRoot);
    // The Parquet decoder (5 MB of WASM) starts compiling now, off the main thread, so the
    // first analysis does not wait for it; its module loads nothing else, so `initialize`
    // is still answered before anything heavy loads.
    warmDecoder();
  }

  /** The open service; WORKSPACE_NOT_FOUND until the root has a workspace. */
  open(): Promise<WorkspaceService> {
    if (this.service) return Promise.resolve(this.service);
    this.opening ??= services()
      .then((service) => service.open({ workspace: this.root }))
      .then((service) => (this.service = service))
      .finally(() => (this.opening = null));
    return this.opening;
  }

  /** Idempotent: creates `.diagnostics/` under the fixed root, or reports the one there. */
  async initialize(): ReturnType<typeof WorkspaceService.init> {
    return (await services()).init(this.root);
  }

  /**
   * Absolute host paths that must never appear in a result or error: the storage folder
   * first (its longer paths are replaced before the root they start with), then the
   * project root itself (WORKSPACE_NOT_FOUND names it). A root of "/" is not hidden: every
   * path separator would go with it.
   */
  hiddenPaths(): string[] {
    const roots = [this.root];
    try {
      const real = realpathSync(this.root);
      if (real !== this.root) roots.push(real);
    } catch {
      // The root may not exist yet; its lexical form is enough then.
    }
    return [...roots.map((r) => join(r, ".diagnostics")), ...roots.filter((r) => r.length > 1)];
  }

  /** Remembers a running tool call, so shutdown can wait for its cleanup. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inflight.add(work);
    work.finally(() => this.inflight.delete(work)).catch(() => {});
    return work;
  }

  /**
   * Waits (bounded) for running calls to finish. On disconnect the SDK aborts them; an
   * aborted import still has to stop its worker, record the run as cancelled and clear
   * staging before the workspace closes.
   */
  async drain(timeoutMs: number): Promise<void> {
    if (this.inflight.size === 0) return;
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }

  close(): void {
    this.service?.close();
    this.service = null;
  }
}
