/**
 * Content digests of executables, cached by file identity. The identity includes ctime,
 * which no user can set back, so any write, rename-over or chmod forces a rehash; an
 * unchanged 100 MB runtime is hashed once per process, not once per plan.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { ResolvedExecutable } from "../domain/capture.ts";

type Identity = ResolvedExecutable["identity"];

const cache = new Map<string, { key: string; sha256: string }>();

export function fileIdentity(path: string): Identity {
  const info = statSync(path, { bigint: true });
  return {
    dev: Number(info.dev),
    ino: Number(info.ino),
    size: Number(info.size),
    mtime_ns: info.mtimeNs.toString(),
    ctime_ns: info.ctimeNs.toString(),
  };
}

export function digestExecutable(path: string): { sha256: string; identity: Identity } {
  const identity = fileIdentity(path);
  const key =
    `${identity.dev}:${identity.ino}:${identity.size}:` +
    `${identity.mtime_ns}:${identity.ctime_ns}`;
  const hit = cache.get(path);
  if (hit && hit.key === key) return { sha256: hit.sha256, identity };
  const sha256 = `sha256:${hashFile(path)}`;
  // The file may have changed while it was read; only an identity seen on both sides is cached.
  const after = fileIdentity(path);
  if (JSON.stringify(after) === JSON.stringify(identity)) cache.set(path, { key, sha256 });
  return { sha256, identity: after };
}

/**
 * Streams a file through SHA-256 in 1 MiB reads (hex), so a large runtime binary is never held
 * whole.
 */
export function hashFile(path: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const buffer = new Uint8Array(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer))
      hasher.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hasher.digest("hex");
}
