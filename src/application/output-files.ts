/**
 * Files written where a person asked (pictures, exports, an artifact's bytes): written beside
 * the target and renamed into place, so a reader never sees half a file, and an existing file
 * is replaced only with `force`.
 */
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import type { Workspace } from "../storage/workspace.ts";
import { artifactPayloadPath } from "../storage/workspace-paths.ts";

/**
 * The native bytes of an artifact, streamed out of the content-addressed store and
 * re-hashed on the way, so a corrupted store never hands back different bytes.
 */
export async function copyArtifactBytes(
  ws: Workspace,
  artifactId: string,
  outputPath: string,
  options: { force: boolean },
): Promise<{ artifact_id: string; bytes: number; path: string }> {
  const record = ws.artifacts.get(artifactId);
  const hex = record.artifact_id.slice("sha256:".length);
  const source = await open(artifactPayloadPath(ws.paths, hex), "r").catch((error: Error) => {
    throw new FlameoxError(
      "ARTIFACT_INTEGRITY_FAILED",
      `The stored bytes of ${record.artifact_id} cannot be read: ${error.message}`,
      { remediation: ["Run `flameox validate --full`"] },
    );
  });
  const temp = join(dirname(outputPath), `.${basename(outputPath)}.${process.pid}.partial`);
  const target = await open(temp, "wx", 0o644);
  const hasher = new Bun.CryptoHasher("sha256");
  let bytes = 0;
  try {
    const buffer = new Uint8Array(1 << 20);
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hasher.update(buffer.subarray(0, bytesRead));
      await target.write(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
    await target.sync();
  } finally {
    await source.close();
    await target.close();
  }
  if (hasher.digest("hex") !== hex || bytes !== record.byte_length) {
    await rm(temp, { force: true });
    throw new FlameoxError(
      "ARTIFACT_INTEGRITY_FAILED",
      `The stored bytes of ${record.artifact_id} no longer match their digest; nothing was written`,
      { remediation: ["Run `flameox validate --full`"] },
    );
  }
  await placeOutput(temp, outputPath, options.force);
  return { artifact_id: record.artifact_id, bytes, path: outputPath };
}

/** Writes bytes to `path` atomically; an existing file is replaced only with `force`. */
export async function writeOutputFile(
  path: string,
  bytes: Uint8Array,
  options: { force: boolean },
): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  await Bun.write(temp, bytes);
  await placeOutput(temp, path, options.force);
}

async function placeOutput(temp: string, path: string, force: boolean): Promise<void> {
  if (!force && (await Bun.file(path).exists())) {
    await rm(temp, { force: true });
    throw new FlameoxError("INVALID_ARGUMENTS", `${path} exists; pass --force to replace it`, {
      details: { field: "output" },
    });
  }
  await rename(temp, path);
}
