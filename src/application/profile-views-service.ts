/**
 * Pictures, diffs, exports and artifact bytes over one open workspace: the use cases
 * behind `flameox flamegraph`, `diff`, `export`, `artifacts get` and the diff_profiles
 * tool. Each reads the workspace's current pinned snapshot; the modules that do the work
 * (viewer scripts, exporters, the diff) load on first use, since no other command needs
 * them.
 */
import { FlameoxError } from "../domain/errors.ts";
import type { FrameMetric } from "../domain/evidence-schema.ts";
import { resolveSubject } from "../analysis/subject.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";
import type { DiffRequest, ExportFormat, FlamegraphRequest } from "./profile-views.ts";

const views = () => import("./profile-views.ts");

export class ProfileViewsService {
  constructor(
    private readonly ws: Workspace,
    /** The snapshot each request reads: the workspace's HEAD at the time of the request. */
    private readonly pin: () => SnapshotHandle,
    /** A page size within the workspace's configured bounds. */
    private readonly limit: (requested: number | undefined) => number,
  ) {}

  /** A flamegraph (or differential flamegraph) page or SVG; the caller writes the bytes. */
  async flamegraph(request: FlamegraphRequest) {
    const { renderFlamegraph } = await views();
    return renderFlamegraph(this.ws, this.pin(), request);
  }

  /** Registers a written flamegraph against the run it shows. */
  async registerPicture(subject: string, path: string, format: "html" | "svg") {
    const { registerPicture } = await views();
    return registerPicture(this.ws, this.pin(), subject, path, format);
  }

  async diffProfiles(request: Omit<DiffRequest, "limit"> & { limit?: number }) {
    const { diffSubjects } = await views();
    return diffSubjects(this.ws, this.pin(), { ...request, limit: this.limit(request.limit) });
  }

  async exportProfile(request: { subject: string; format: ExportFormat; metric?: FrameMetric }) {
    const { exportProfile } = await views();
    return exportProfile(this.ws, this.pin(), request);
  }

  /** Copies an artifact's native bytes out of the store, verified against its digest. */
  async getArtifactBytes(ref: string, outputPath: string, options: { force: boolean }) {
    const subject = resolveSubject(this.ws, this.pin(), ref);
    if (subject.type !== "artifact")
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        "Expected an artifact id (sha256:…) to copy bytes of",
        { details: { field: "artifact_id" } },
      );
    const { copyArtifactBytes } = await import("./output-files.ts");
    return copyArtifactBytes(this.ws, subject.id, outputPath, options);
  }
}
