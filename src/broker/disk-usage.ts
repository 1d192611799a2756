/**
 * Bounded byte counts of a directory tree and free bytes of a filesystem. The walk never
 * follows symbolic links and stops at a file budget, reporting "unavailable" with the
 * reason rather than a number that silently undercounts.
 */
import { lstatSync, readdirSync, statfsSync } from "node:fs";
import { join } from "node:path";

export type Measured = { bytes: number; reason: null } | { bytes: null; reason: string };

export function directoryBytes(root: string, maxEntries = 10_000): Measured {
  let bytes = 0;
  let entries = 0;
  const stack = [root];
  try {
    while (stack.length > 0) {
      const dir = stack.pop()!;
      for (const name of readdirSync(dir)) {
        if (++entries > maxEntries)
          return { bytes: null, reason: `more than ${maxEntries} files; not counted` };
        const path = join(dir, name);
        const info = lstatSync(path);
        if (info.isDirectory()) stack.push(path);
        else if (info.isFile()) bytes += info.size;
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && entries === 0) return { bytes: 0, reason: null };
    return { bytes: null, reason: `cannot read the tree: ${code ?? (error as Error).message}` };
  }
  return { bytes, reason: null };
}

/** Bytes available to an unprivileged writer on the filesystem holding `path`. */
export function freeBytes(path: string): Measured {
  try {
    const fs = statfsSync(path);
    return { bytes: Number(fs.bavail) * Number(fs.bsize), reason: null };
  } catch (error) {
    return {
      bytes: null,
      reason: `statfs failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
}
