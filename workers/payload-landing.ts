/**
 * A payload that is still landing: an import starts the parse worker while it copies the file
 * into staging, so the worker reads the staged copy as it grows (the copy runs several times
 * faster than any parser; without the overlap, a 200 MB import waited ~1 s for it). The copy
 * writes the file front to back, and Linux extends a file's size only past bytes already
 * written, so every byte below the size the worker sees is final. The worker never reads past
 * the size the parent announced, and it takes the artifact's id (the copy's SHA-256, known only
 * at the end) from the landed file the parent writes once the copy is hashed and registered. A
 * copy that fails is not announced: the parent stops the worker, and the worker's owner-death
 * signal covers a parent that dies.
 */
import { existsSync, fstatSync, readFileSync, statSync } from "node:fs";
import { FlameoxError } from "../src/domain/errors.ts";

export interface Landing {
  /** The payload's size once landed: the source's size when the copy began. */
  bytes: number;
  /** Written by the parent, whole (renamed into place), once the copy is registered. */
  landedFile: string;
}

/** How often a worker that has caught up with the copy looks again (ms). */
const POLL_MS = 2;

/** Waits until the file open as `fd` (or at `path`) holds at least `bytes` bytes. */
export async function waitForBytes(target: number | string, bytes: number): Promise<void> {
  const size = () => (typeof target === "number" ? fstatSync(target) : statSync(target)).size;
  while (size() < bytes) await Bun.sleep(POLL_MS);
}

/**
 * The artifact id the parent announces once the payload has landed. It must describe the bytes
 * the worker was told to expect: anything else means the parent and worker disagree about the
 * file, and nothing the worker derived from it may be published.
 */
export async function landedArtifactId(landing: Landing): Promise<string> {
  while (!existsSync(landing.landedFile)) await Bun.sleep(POLL_MS);
  const landed = JSON.parse(readFileSync(landing.landedFile, "utf8")) as {
    artifact_id?: unknown;
    byte_length?: unknown;
  };
  if (typeof landed.artifact_id !== "string" || landed.byte_length !== landing.bytes)
    throw new FlameoxError(
      "INTERNAL_ERROR",
      `The payload landed as ${JSON.stringify(landed)}, not the ${landing.bytes} bytes announced`,
    );
  return landed.artifact_id;
}
