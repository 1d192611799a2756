/**
 * Runs the exact bytes that were checked. Each bound executable is opened once, its
 * content hashed through that descriptor and compared with the digest the plan bound,
 * and the child is handed the descriptor (as fd 3, 4, …) and told to execute
 * `/proc/self/fd/N` in place of the path. Renaming another file over the path after the
 * check changes nothing: the descriptor names the inode that was hashed. This works
 * through wrappers that keep descriptors (prlimit, bubblewrap: the sandbox has its own
 * /proc, and the descriptor is inherited into it).
 *
 * What it costs: a program sees `/proc/self/fd/N` as its own path where a wrapper execs
 * it (a script's `$0`, for one); rewriting the same inode in place while it starts is
 * not detected (a running binary cannot be written: ETXTBSY).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ResolvedExecutable } from "../domain/capture.ts";
import { FlameoxError } from "../domain/errors.ts";

/**
 * The first descriptor number a pinned executable gets in the child (after stdin, stdout, stderr).
 */
const FIRST_CHILD_FD = 3;

export class PinnedExecutables {
  private constructor(private readonly pins: { path: string; fd: number; childPath: string }[]) {}

  /**
   * Opens and verifies every executable; throws EXECUTABLE_CHANGED (closing what it opened) when
   * one differs from its binding.
   */
  static open(bound: readonly ResolvedExecutable[]): PinnedExecutables {
    const pins: { path: string; fd: number; childPath: string }[] = [];
    try {
      for (const executable of bound) {
        if (pins.some((p) => p.path === executable.path)) continue;
        const fd = openSync(executable.canonical_path, "r");
        pins.push({
          path: executable.path,
          fd,
          childPath: `/proc/self/fd/${FIRST_CHILD_FD + pins.length}`,
        });
        const info = fstatSync(fd);
        if (!info.isFile() || (info.mode & 0o111) === 0)
          throw changed(executable, "it is no longer an executable regular file");
        if (`sha256:${hashDescriptor(fd)}` !== executable.sha256)
          throw changed(executable, "its content changed");
      }
    } catch (error) {
      for (const pin of pins) closeSync(pin.fd);
      if (error instanceof FlameoxError) throw error;
      throw new FlameoxError(
        "EXECUTABLE_CHANGED",
        `Cannot execute: a bound executable cannot be opened (${(error as Error).message})`,
        {
          remediation: ["Plan the capture again to bind the executable as it is now"],
        },
      );
    }
    return new PinnedExecutables(pins);
  }

  /** The argv with every item naming a pinned executable replaced by its descriptor path. */
  rewrite(argv: string[]): string[] {
    return argv.map((item) => this.pins.find((p) => p.path === item)?.childPath ?? item);
  }

  /** Descriptors to hand to the child, in order, starting at fd 3. */
  get descriptors(): number[] {
    return this.pins.map((p) => p.fd);
  }

  /** The parent's copies; the child keeps its own. */
  close(): void {
    for (const pin of this.pins.splice(0)) closeSync(pin.fd);
  }
}

function hashDescriptor(fd: number): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const buffer = new Uint8Array(1 << 20);
  for (
    let position = 0, n = readSync(fd, buffer, 0, buffer.length, 0);
    n > 0;
    position += n, n = readSync(fd, buffer, 0, buffer.length, position)
  )
    hasher.update(buffer.subarray(0, n));
  return hasher.digest("hex");
}

function changed(executable: ResolvedExecutable, why: string): FlameoxError {
  return new FlameoxError(
    "EXECUTABLE_CHANGED",
    `Cannot execute ${executable.requested}: ${why} since the plan was made`,
    {
      details: { executable: executable.requested, path: executable.path },
      remediation: ["Plan the capture again to bind the executable as it is now"],
    },
  );
}
