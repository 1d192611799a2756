/**
 * flameox as a child subreaper (Linux `prctl(PR_SET_CHILD_SUBREAPER)`, through bun:ffi):
 * a descendant whose parent exits is re-parented to flameox instead of init, so a
 * workload's double-forked, setsid'd daemon stays in reach of cleanup even when no
 * sample ever saw it. Set once per process, on the first capture spawn. Orphans adopted
 * this way are found among flameox's own children (those the broker did not spawn,
 * started after the run's leader), killed by that run's reaper, and reaped here with
 * waitpid, since Bun only waits for the children it spawned itself.
 *
 * Where the call is unavailable (not Linux, no glibc to bind), capture results say that
 * descendants leaving both session and process group between samples may escape.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import type { ProcStat } from "../domain/proc-stat.ts";
import { childrenOf, readStat } from "./process-tree.ts";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

type Libc = {
  prctl: (...args: number[]) => number;
  waitpid: (pid: number, status: unknown, options: number) => number;
};
let libc: Libc | null | undefined;
let enabled: boolean | null = null;
/** Children the broker spawned itself and is waiting for: never orphans. */
const spawned = new Set<number>();

/** Makes this process a child subreaper; true when it is one. */
export function enableSubreaper(): boolean {
  if (enabled !== null) return enabled;
  const c = bind();
  enabled = c !== null && c.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  return enabled;
}

export function trackSpawned(pid: number): void {
  spawned.add(pid);
}

export function untrackSpawned(pid: number): void {
  spawned.delete(pid);
}

/**
 * Live orphans adopted by this process that started no earlier than `since` (clock ticks, /proc
 * stat field 22).
 */
export function adoptedOrphans(since: string): ProcStat[] {
  if (!enabled) return [];
  const floor = BigInt(since);
  const out: ProcStat[] = [];
  for (const pid of childrenOf(process.pid)) {
    if (spawned.has(pid)) continue;
    const stat = readStat(pid);
    if (stat && stat.state !== "Z" && BigInt(stat.startTime) >= floor) out.push(stat);
  }
  return out;
}

/** Collects the exit status of adopted orphans that have died, so none stays a zombie. */
export function reapAdopted(): void {
  const c = libc;
  if (!enabled || !c) return;
  const status = new Int32Array(1);
  for (const pid of childrenOf(process.pid)) {
    if (spawned.has(pid)) continue;
    if (readStat(pid)?.state === "Z") c.waitpid(pid, ptr(status), WNOHANG);
  }
}

function bind(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return null;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const lib = dlopen(name, {
        prctl: {
          args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64],
          returns: FFIType.i32,
        },
        waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      });
      libc = lib.symbols as unknown as Libc;
      break;
    } catch {
      // Try the next name (musl ships libc.so).
    }
  }
  return libc;
}
