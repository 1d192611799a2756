/**
 * Companion files an imported artifact declares beside itself (NVBench's per-sample
 * sidecars), read after the artifact's own extraction. Each is a second file the caller did
 * not name, so it gets no trust from the first: its path (relative to the artifact's
 * directory, or absolute) must pass the same import fence (same allowed root, no link on
 * the way, one hard link, a regular file), it must hold exactly the bytes the declaration
 * says, and it enters the workspace like any artifact (staged while hashed, content
 * addressed, registered to the same run with role `sidecar`), then is extracted by the
 * adapter the declaration names, with the declaration's context. A sidecar that is
 * missing, fenced out, of another size or fails to extract is named in a limitation on the
 * run; the import itself still succeeds.
 */
import { stat, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import type { CompanionFile } from "../domain/companion-files.ts";
import { asFlameoxError } from "../domain/errors.ts";
import type { Limitation } from "../domain/evidence-status.ts";
import { newOperationId } from "../domain/ids.ts";
import type { Sensitivity } from "../domain/records.ts";
import { claimStagingDir } from "../storage/staging-lease.ts";
import type { Workspace } from "../storage/workspace.ts";
import { extractArtifact } from "./extract-artifact.ts";
import type { ImportResult } from "./import-artifact.ts";
import { type FencedPath, fenceImportPath, type SourceRoot } from "./import-fence.ts";
import { registerFile } from "./register-artifact.ts";

/** The adapters a declaration may name: a companion is read only by an adapter made for it. */
const COMPANION_ADAPTERS = new Set(["nvbench-samples"]);
/** Companions read per import; an NVBench sweep declares one or two per state. */
export const MAX_COMPANIONS_READ = 256;
const MAX_NAMED = 20;

export type CompanionStatus =
  | "imported"
  | "missing"
  | "refused"
  | "size_mismatch"
  | "failed"
  | "over_bound";

export interface CompanionOutcome {
  filename: string;
  status: CompanionStatus;
  declared_bytes: number;
  artifact_id: string | null;
  registration_id: string | null;
  /** Rows the companion's extraction published (measurements for a sidecar). */
  rows: number | null;
  /** Why it was not read, or null. */
  reason: string | null;
}

export interface CompanionPlace {
  projectRoot: string;
  sourceRoot: SourceRoot;
  /** The artifact's own path below its root, as the fence checked it. */
  displayPath: string;
  sensitivity: Sensitivity;
  signal?: AbortSignal;
}

export type ImportWithCompanions = ImportResult & { companions?: CompanionOutcome[] };

/**
 * Where a path named on the command line lies, for fencing what it declares: below the
 * project root or the system temp directory (lexically), else nowhere a companion may be read.
 */
export function placeOfPath(
  projectRoot: string,
  path: string,
): { sourceRoot: SourceRoot; displayPath: string } | null {
  const absolute = resolve(path);
  for (const [sourceRoot, root] of [
    ["project", resolve(projectRoot)],
    ["temp", tmpdir()],
  ] as const) {
    const rel = relative(root, absolute);
    if (rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
      return { sourceRoot, displayPath: rel.split(sep).join("/") };
  }
  return null;
}

/**
 * Every declared companion refused at once: the artifact itself lies outside the roots companions
 * may come from.
 */
export function refuseCompanions(
  ws: Workspace,
  result: ImportResult,
  reason: string,
): ImportWithCompanions {
  const outcomes = result.extraction.companions.map((c) => outcome(c, "refused", reason));
  const limitations: Limitation[] = [
    ...result.extraction.limitations,
    {
      code: "sidecar_not_read",
      message: `declared sidecar files not read: ${reason}`,
      count: outcomes.length,
    },
  ];
  ws.control.withWriteLock(() => ws.runs.update(result.run_id, { limitations }));
  return { ...result, extraction: { ...result.extraction, limitations }, companions: outcomes };
}

export async function importCompanions(
  ws: Workspace,
  result: ImportResult,
  place: CompanionPlace,
): Promise<ImportWithCompanions> {
  const declared = result.extraction.companions;
  const outcomes: CompanionOutcome[] = [];
  for (const [index, companion] of declared.entries()) {
    if (index >= MAX_COMPANIONS_READ)
      outcomes.push(
        outcome(
          companion,
          "over_bound",
          `more than ${MAX_COMPANIONS_READ} companion files are declared; the rest are not read`,
        ),
      );
    else outcomes.push(await importOne(ws, result.run_id, companion, place));
  }
  const unread = outcomes.filter((o) => o.status !== "imported");
  const limitations: Limitation[] = [...result.extraction.limitations];
  if (unread.length > 0) {
    const named = unread
      .slice(0, MAX_NAMED)
      .map((o) => `${o.filename} (${o.status}: ${o.reason})`)
      .join("; ");
    limitations.push({
      code: "sidecar_not_read",
      message:
        `declared sidecar files not ` +
        `read: ${named}` +
        `${unread.length > MAX_NAMED ? ` and ${unread.length - MAX_NAMED} more` : ""}`,
      count: unread.length,
    });
  }
  // Each companion's extraction wrote the run's status and limitations as its own; the run's
  // are the artifact's, plus what was not read. A companion that failed is quarantined and
  // named here; the evidence already published stays valid.
  ws.control.withWriteLock(() =>
    ws.runs.update(result.run_id, { extraction_status: "published", limitations, error: null }),
  );
  return { ...result, extraction: { ...result.extraction, limitations }, companions: outcomes };
}

function outcome(
  companion: CompanionFile,
  status: CompanionStatus,
  reason: string | null,
  ids: { artifact_id: string; registration_id: string } | null = null,
  rows: number | null = null,
): CompanionOutcome {
  return {
    filename: companion.filename,
    status,
    declared_bytes: companion.byte_length,
    artifact_id: ids?.artifact_id ?? null,
    registration_id: ids?.registration_id ?? null,
    rows,
    reason,
  };
}

async function importOne(
  ws: Workspace,
  runId: string,
  companion: CompanionFile,
  place: CompanionPlace,
): Promise<CompanionOutcome> {
  if (!COMPANION_ADAPTERS.has(companion.adapter))
    return outcome(
      companion,
      "refused",
      `adapter ${companion.adapter} does not read companion files`,
    );
  // Relative to the artifact's directory below the same root; an absolute name is checked as given.
  const directory = posix.dirname(place.displayPath);
  const path =
    isAbsolute(companion.filename) || directory === "."
      ? companion.filename
      : posix.join(directory, companion.filename);
  let fenced: FencedPath;
  try {
    fenced = await fenceImportPath(place.projectRoot, path, place.sourceRoot);
  } catch (error) {
    const failure = asFlameoxError(error);
    return outcome(
      companion,
      /no such file/.test(failure.message) ? "missing" : "refused",
      failure.message,
    );
  }
  // Named as declared (two states' sidecars are both `0.bin` in different folders); an absolute
  // name by its last part.
  const displayName = isAbsolute(companion.filename)
    ? posix.basename(companion.filename)
    : companion.filename;
  const operationId = newOperationId();
  const stagingDir = join(ws.paths.staging, operationId);
  try {
    const size = (await stat(fenced.openPath)).size;
    if (size !== companion.byte_length)
      return outcome(
        companion,
        "size_mismatch",
        `the file holds ${size} bytes, the declaration says ${companion.byte_length}`,
      );
    claimStagingDir(ws.paths, operationId);
    const registered = await registerFile(
      ws,
      fenced.openPath,
      stagingDir,
      {
        runId,
        displayName,
        kind: "benchmark_samples",
        mediaType: "application/octet-stream",
        role: "sidecar",
        producer: null,
        producerVersion: null,
        sensitivity: place.sensitivity,
      },
      { signal: place.signal },
    );
    const ids = {
      artifact_id: registered.artifact_id,
      registration_id: registered.registration_id,
    };
    // Changed between the size check and the copy: registered, but not read as the declared
    // samples.
    if (registered.byte_length !== companion.byte_length)
      return outcome(
        companion,
        "size_mismatch",
        `the file changed while read: ${registered.byte_length} bytes, the declaration ` +
          `says ${companion.byte_length}`,
        ids,
      );
    const extraction = await extractArtifact(ws, {
      runId,
      artifactId: registered.artifact_id,
      registrationId: registered.registration_id,
      displayName,
      adapter: companion.adapter,
      context: companion.context,
      signal: place.signal,
    });
    return outcome(
      companion,
      "imported",
      null,
      ids,
      Object.values(extraction.tables).reduce((a, b) => a + b, 0),
    );
  } catch (error) {
    const failure = asFlameoxError(error);
    if (failure.code === "PROCESS_CANCELLED") throw failure;
    return outcome(companion, "failed", failure.message);
  } finally {
    await fenced.release();
    await rm(stagingDir, { recursive: true, force: true });
  }
}
