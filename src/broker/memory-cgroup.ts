/**
 * A memory cgroup for one child: the kernel caps the child's resident memory (and swap,
 * where accounted) and kills it when it goes over. Preferred to an address-space rlimit
 * because Bun's engine, seeing any rlimit, stops reserving virtual memory for WebAssembly
 * and its caged heaps and falls back to allocating them resident: measured on a 200 MB
 * trace import, `prlimit --as` raised the parse worker's peak from 0.61 to 0.86 GB (the
 * JSON scanner's instance alone went from 71 to 298 MB). A cgroup caps what is used,
 * not what is reserved.
 *
 * The group is created beneath flameox's own memory cgroup (see own-cgroup.ts), never at
 * the hierarchy's root, so the child stays inside any limit set on flameox's caller. Needs
 * that group to be writable: cgroup v1, or a cgroup v2 group that delegates the memory
 * controller to its children. Where neither is `create` returns null and the broker falls
 * back to the rlimit. The child is moved in right after it is spawned; what it allocated
 * before (a few milliseconds of runtime start-up) stays charged where it was.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { resolveOwnMemoryCgroup } from "./own-cgroup.ts";

let sequence = 0;

export class MemoryCgroup {
  /** Use `create`. */
  constructor(
    /** The group's directory (beneath flameox's own memory cgroup). */
    readonly dir: string,
    private readonly version: 1 | 2,
  ) {}

  /** A new group limited to `limitBytes`, or null when this host gives flameox none. */
  static create(limitBytes: number): MemoryCgroup | null {
    if (process.platform !== "linux") return null;
    if (sequence === 0) removeStaleGroups();
    const name = `flameox-${process.pid}-${++sequence}`;
    return tryCreate(v1Parent(), 1, name, limitBytes) ?? tryCreate(v2Parent(), 2, name, limitBytes);
  }

  /** Moves a process in; false when the kernel refused (the child then runs uncapped). */
  add(pid: number): boolean {
    try {
      writeFileSync(join(this.dir, "cgroup.procs"), String(pid));
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the kernel killed a member for going over the limit. */
  oomKilled(): boolean {
    const text = readOrEmpty(
      join(this.dir, this.version === 1 ? "memory.oom_control" : "memory.events"),
    );
    const match = /^oom_kill (\d+)$/m.exec(text);
    return match !== null && Number(match[1]) > 0;
  }

  /** Peak memory charged to the group, when the kernel reports it. */
  peakBytes(): number | null {
    const text = readOrEmpty(
      join(this.dir, this.version === 1 ? "memory.max_usage_in_bytes" : "memory.peak"),
    ).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  }

  /**
   * Removes the group (once its processes are gone; retried briefly while the kernel reaps them).
   */
  async dispose(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        rmdirSync(this.dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        await Bun.sleep(10);
      }
    }
  }
}

/**
 * Groups left by flameox processes that were killed before removing them (empty once their child is
 * gone).
 */
export function removeStaleGroups(): void {
  for (const parent of [v1Parent(), v2Parent()]) {
    if (parent === null) continue;
    let names: string[];
    try {
      names = readdirSync(parent).filter((n) => /^flameox-\d+-\d+$/.test(n));
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = Number(name.split("-")[1]);
      if (owner === process.pid || existsSync(`/proc/${owner}`)) continue;
      try {
        rmdirSync(join(parent, name));
      } catch {
        // Still has a live member (a child that outlived its flameox process): leave it.
      }
    }
  }
}

function tryCreate(
  parent: string | null,
  version: 1 | 2,
  name: string,
  limitBytes: number,
): MemoryCgroup | null {
  if (parent === null || !existsSync(parent)) return null;
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    if (version === 1) {
      writeFileSync(join(dir, "memory.limit_in_bytes"), String(limitBytes));
      // Swap is capped too where it is accounted (memsw must not be below the memory limit).
      if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
        writeFileSync(join(dir, "memory.memsw.limit_in_bytes"), String(limitBytes));
    } else {
      writeFileSync(join(dir, "memory.max"), String(limitBytes));
      if (existsSync(join(dir, "memory.swap.max")))
        writeFileSync(join(dir, "memory.swap.max"), "0");
    }
    return new MemoryCgroup(dir, version);
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // Left for the kernel to refuse again next time; nothing else to do.
    }
    return null;
  }
}

/** This process's own cgroup v1 memory group. */
function v1Parent(): string | null {
  return (
    resolveOwnMemoryCgroup(readOrEmpty("/proc/self/cgroup"), readOrEmpty("/proc/self/mountinfo"), 1)
      ?.dir ?? null
  );
}

/** This process's own cgroup v2 directory, when it delegates the memory controller to children. */
function v2Parent(): string | null {
  const dir =
    resolveOwnMemoryCgroup(readOrEmpty("/proc/self/cgroup"), readOrEmpty("/proc/self/mountinfo"), 2)
      ?.dir ?? null;
  if (dir === null) return null;
  return readOrEmpty(join(dir, "cgroup.subtree_control")).split(/\s+/).includes("memory")
    ? dir
    : null;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
