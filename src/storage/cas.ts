/**
 * Content-addressed store for native artifacts. Bytes are streamed from the source into
 * a staging file while SHA-256 is computed (one pass, one fsync, then a rename into the
 * store under that digest), never held whole in memory. Only regular
 * files are accepted, opened without following symlinks, and the source's identity and
 * size are checked again after copying so a file swapped or grown mid-copy is refused.
 */
import { constants, type Stats } from "node:fs";
import {
  chmod,
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  rename,
  rm,
  stat,
} from "node:fs/promises";
import { dirname } from "node:path";
import { FlameoxError } from "../domain/errors.ts";
import { artifactPayloadPath, type WorkspacePaths } from "./workspace-paths.ts";

/**
 * Bytes per read and write of the staging copy. Its three buffers are fresh memory, and each page
 * of them is a page fault when first written (a few µs each on a VM): with 4 MiB chunks, 12 MiB of
 * buffers cost more than the copy of a small file. bench/registration-bench.ts, same runs, 1 MiB
 * against 4 MiB: a 19 MB file staged in 38-44 ms (27-28 ms CPU) against 65-68 ms (61-70 ms CPU);
 * 1 MB in 5-7 against 12 ms; 200 MB in 279-282 against 295 ms. 512 and 256 KiB were no better.
 */
export const STAGING_CHUNK_BYTES = 1024 * 1024;

export interface StagedArtifact {
  sha256Hex: string;
  byteLength: number;
  stagedPath: string;
}

export interface StageOptions {
  maxBytes: number;
  onProgress?: (bytesCopied: number, totalBytes: number) => void;
  signal?: AbortSignal;
}

/** A source file opened for staging, with the size it had when opened. */
export interface ArtifactSource {
  path: string;
  handle: FileHandle;
  opened: Stats;
}

export async function stageArtifact(
  sourcePath: string,
  stagedPath: string,
  options: StageOptions,
): Promise<StagedArtifact> {
  const source = await openArtifactSource(sourcePath, options.maxBytes);
  return (await startStagingCopy(source, stagedPath, options)).staged;
}

/**
 * Opens `sourcePath` for staging: a regular file, not a link, within `maxBytes`. The caller
 * passes it to startStagingCopy, which closes it.
 */
export async function openArtifactSource(
  sourcePath: string,
  maxBytes: number,
): Promise<ArtifactSource> {
  const before = await lstat(sourcePath).catch((error: NodeJS.ErrnoException) => {
    throw new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot import ${sourcePath}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
    );
  });
  refuseNonRegular(sourcePath, before);
  refuseOversize(sourcePath, before.size, maxBytes);

  // O_NOFOLLOW closes the window between lstat and open for a final-component symlink
  // swap; O_NONBLOCK keeps a FIFO swapped in from blocking the open.
  const source = await open(
    sourcePath,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch((error: NodeJS.ErrnoException) => {
    throw new FlameoxError(
      "ARTIFACT_REFUSED",
      `Cannot import ${sourcePath}: ` +
        `${error.code === "ELOOP" ? "it is a symbolic link" : error.message}`,
    );
  });
  try {
    const opened = await source.stat();
    refuseNonRegular(sourcePath, opened);
    if (opened.ino !== before.ino || opened.dev !== before.dev) {
      throw new FlameoxError(
        "ARTIFACT_REFUSED",
        `Cannot import ${sourcePath}: the file was replaced while it was being opened`,
      );
    }
    refuseOversize(sourcePath, opened.size, maxBytes);
    return { path: sourcePath, handle: source, opened };
  } catch (error) {
    await source.close().catch(() => {});
    throw error;
  }
}

/**
 * Creates `stagedPath` and starts streaming an opened source into it while hashing it; the
 * source is closed at the end. Resolves once the staged file exists; `staged` resolves when it
 * is complete and synced. The file is written front to back, so a reader may follow it as it
 * grows (an import's parse worker does, workers/payload-landing.ts).
 */
export async function startStagingCopy(
  source: ArtifactSource,
  stagedPath: string,
  options: StageOptions,
): Promise<{ staged: Promise<StagedArtifact> }> {
  let target: FileHandle;
  try {
    await mkdir(dirname(stagedPath), { recursive: true });
    target = await open(stagedPath, "wx", 0o600);
  } catch (error) {
    await source.handle.close().catch(() => {});
    throw error;
  }
  return { staged: copyInto(source, target, stagedPath, options) };
}

async function copyInto(
  { path: sourcePath, handle: source, opened }: ArtifactSource,
  target: FileHandle,
  stagedPath: string,
  options: StageOptions,
): Promise<StagedArtifact> {
  try {
    const { sha256Hex, copied } = await copyHashing(source, target, (bytes) => {
      if (options.signal?.aborted)
        throw new FlameoxError("PROCESS_CANCELLED", "Import cancelled while copying the artifact");
      refuseOversize(sourcePath, bytes, options.maxBytes);
      options.onProgress?.(bytes, opened.size);
    });
    const after = await source.stat();
    if (after.size !== opened.size || copied !== opened.size || after.mtimeMs !== opened.mtimeMs) {
      throw new FlameoxError(
        "ARTIFACT_REFUSED",
        `Cannot import ${sourcePath}: the file changed size or content while it was being copied`,
        {
          remediation: ["Import the file once the producer has finished writing it"],
        },
      );
    }
    // One fsync, once every byte is written; the rename into the store comes after it.
    await target.sync();
    return { sha256Hex, byteLength: copied, stagedPath };
  } catch (error) {
    await target.close().catch(() => {});
    await rm(stagedPath, { force: true });
    throw error;
  } finally {
    await source.close().catch(() => {});
    await target.close().catch(() => {});
  }
}

/**
 * Copies `source` to `target` in one pass and hashes the bytes as they go by: the next
 * chunk is read and the previous one written while this one is hashed, so the copy costs
 * about what the slower of reading and writing costs, not their sum plus the hash (a
 * 200 MB file: 0.26-0.53 s against 0.34-1.3 s read, hash, write in turn, same run on a
 * loaded machine). The digest is of exactly the bytes written. `onChunk` sees the bytes
 * read so far and may throw to stop the copy.
 */
async function copyHashing(
  source: FileHandle,
  target: FileHandle,
  onChunk: (bytesSoFar: number) => void,
): Promise<{ sha256Hex: string; copied: number }> {
  const hasher = new Bun.CryptoHasher("sha256");
  // Three buffers: one being read into, one being hashed, one being written from.
  const buffers = [0, 1, 2].map(() => new Uint8Array(STAGING_CHUNK_BYTES));
  let reading = source.read(buffers[0]!, 0, STAGING_CHUNK_BYTES, null);
  let writing: Promise<void> = Promise.resolve();
  let copied = 0;
  try {
    for (let i = 1; ; i++) {
      const { bytesRead, buffer } = await reading;
      if (bytesRead === 0) break;
      copied += bytesRead;
      onChunk(copied);
      const chunk = buffer.subarray(0, bytesRead);
      reading = source.read(buffers[i % 3]!, 0, STAGING_CHUNK_BYTES, null);
      hasher.update(chunk);
      await writing;
      writing = writeFully(target, chunk);
    }
    await writing;
  } catch (error) {
    // Settle what is still in flight before the caller closes the files.
    await Promise.allSettled([reading, writing]);
    throw error;
  }
  return { sha256Hex: hasher.digest("hex"), copied };
}

async function writeFully(target: FileHandle, chunk: Uint8Array): Promise<void> {
  let done = 0;
  while (done < chunk.length)
    done += (await target.write(chunk, done, chunk.length - done)).bytesWritten;
}

/**
 * Moves a staged payload into the store under its digest. If the object already exists
 * (deduplication) the staged copy is dropped. Stored payloads are read-only. With
 * `keepStaged`, the staged path stays valid (the store gets a hard link to it, or nothing when
 * deduplicated) for a reader that may still be about to open it; its owner removes it.
 */
export async function publishArtifact(
  paths: WorkspacePaths,
  staged: StagedArtifact,
  options: { keepStaged?: boolean } = {},
): Promise<string> {
  const finalPath = artifactPayloadPath(paths, staged.sha256Hex);
  const existing = await stat(finalPath).catch(() => null);
  if (existing) {
    if (!options.keepStaged) await rm(staged.stagedPath, { force: true });
    return finalPath;
  }
  await mkdir(dirname(finalPath), { recursive: true });
  await chmod(staged.stagedPath, 0o444);
  if (!options.keepStaged) {
    await rename(staged.stagedPath, finalPath);
    return finalPath;
  }
  // Another writer may have published the same bytes since the stat: theirs stands.
  await link(staged.stagedPath, finalPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return finalPath;
}

/** Streams a stored payload through SHA-256 and compares it with its id. */
export async function verifyArtifact(
  paths: WorkspacePaths,
  sha256Hex: string,
  expectedBytes: number,
): Promise<string | null> {
  const path = artifactPayloadPath(paths, sha256Hex);
  const file = Bun.file(path);
  if (!(await file.exists())) return "payload is missing";
  if (file.size !== expectedBytes)
    return `payload has ${file.size} bytes, expected ${expectedBytes}`;
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of file.stream()) hasher.update(chunk);
  const actual = hasher.digest("hex");
  return actual === sha256Hex ? null : `payload hashes to sha256:${actual}`;
}

function refuseNonRegular(path: string, info: Stats): void {
  if (info.isSymbolicLink()) {
    throw new FlameoxError("ARTIFACT_REFUSED", `Cannot import ${path}: it is a symbolic link`, {
      remediation: ["Import the target file itself, not a link to it"],
    });
  }
  if (!info.isFile()) {
    const kind = info.isFIFO()
      ? "a FIFO"
      : info.isCharacterDevice() || info.isBlockDevice()
        ? "a device"
        : info.isDirectory()
          ? "a directory"
          : info.isSocket()
            ? "a socket"
            : "not a regular file";
    throw new FlameoxError(
      "ARTIFACT_REFUSED",
      `Cannot import ${path}: it is ${kind}; only regular files are imported`,
    );
  }
}

function refuseOversize(path: string, bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) {
    throw new FlameoxError(
      "ARTIFACT_TOO_LARGE",
      `Cannot import ${path}: ${bytes} bytes exceed the limit of ${maxBytes} bytes`,
      {
        remediation: [
          "Raise storage.max_artifact_bytes in .diagnostics/config.toml if this artifact is " +
            "expected",
        ],
      },
    );
  }
}
