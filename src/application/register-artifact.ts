/**
 * Registering native bytes to a run: the one path by which an artifact enters the
 * workspace, shared by imports and captures. A file is streamed into staging while
 * hashed (regular files only, no symlinks, refused if it changes mid-copy), published
 * into the content-addressed store (deduplicated), and claimed by the run under a short
 * write lock.
 */
import { join } from "node:path";
import { artifactIdFromHex, newRegistrationId } from "../domain/ids.ts";
import type { Sensitivity } from "../domain/records.ts";
import { publishArtifact, type StagedArtifact, stageArtifact } from "../storage/cas.ts";
import { nowIso } from "../storage/control-plane.ts";
import type { Workspace } from "../storage/workspace.ts";

export interface RegistrationMeta {
  runId: string;
  displayName: string;
  kind: string;
  mediaType: string;
  role: string;
  producer: string | null;
  producerVersion: string | null;
  sensitivity: Sensitivity;
}

export interface RegisteredArtifact {
  artifact_id: string;
  registration_id: string;
  byte_length: number;
  deduplicated: boolean;
}

/** Copies `sourcePath` (untrusted) through staging into the store and registers it. */
export async function registerFile(
  ws: Workspace,
  sourcePath: string,
  stagingDir: string,
  meta: RegistrationMeta,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<RegisteredArtifact> {
  const staged = await stageArtifact(
    sourcePath,
    join(stagingDir, `payload-${newRegistrationId()}`),
    {
      maxBytes: ws.config.storage.max_artifact_bytes,
      signal: options.signal,
      onProgress: options.onProgress,
    },
  );
  return registerStaged(ws, staged, meta);
}

/**
 * Publishes a payload flameox itself wrote into staging (already hashed) and registers it.
 * `keepStaged`: the staged path stays readable (a parse worker may be following it, see
 * import-artifact.ts); the caller removes it with its staging directory.
 */
export async function registerStaged(
  ws: Workspace,
  staged: StagedArtifact,
  meta: RegistrationMeta,
  options: { keepStaged?: boolean } = {},
): Promise<RegisteredArtifact> {
  const artifactId = artifactIdFromHex(staged.sha256Hex);
  const registrationId = newRegistrationId();
  // The object is content addressed, so moving it into the store needs no lock (two
  // writers of the same bytes rename identical files); recording this run's claim about
  // it is the short critical section.
  await publishArtifact(ws.paths, staged, options);
  let deduplicated = false;
  ws.control.withWriteLock(() => {
    deduplicated = ws.artifacts.ensure(artifactId, staged.byteLength);
    ws.artifacts.register({
      registration_id: registrationId,
      run_id: meta.runId,
      artifact_id: artifactId,
      display_name: meta.displayName,
      kind: meta.kind,
      media_type: meta.mediaType,
      role: meta.role,
      producer: meta.producer,
      producer_version: meta.producerVersion,
      sensitivity: meta.sensitivity,
      registered_at: nowIso(),
    });
  });
  return {
    artifact_id: artifactId,
    registration_id: registrationId,
    byte_length: staged.byteLength,
    deduplicated,
  };
}
