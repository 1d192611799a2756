/**
 * The Linux process table as the broker sees it through /proc: one process's stat, its
 * children (from every thread's `children` file), a descendant walk, and the members
 * of a session or process group. Reads are synchronous and tiny; a process that
 * vanishes mid-read is simply absent.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat, type ProcStat } from "../domain/proc-stat.ts";

export const PROCFS_AVAILABLE =
  process.platform === "linux" && safe(() => readdirSync("/proc/self/task").length > 0, false);

/** Bytes per page, from the auxiliary vector (AT_PAGESZ = 6); 4096 if it cannot be read. */
export const PAGE_SIZE = readPageSize();

export function readStat(pid: number): ProcStat | null {
  return safe(() => parseProcStat(readFileSync(`/proc/${pid}/stat`, "latin1")), null);
}

/** The process's high-water resident set (VmHWM) in bytes, or null. */
export function readHighWaterRss(pid: number): number | null {
  return safe(() => {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return match ? Number(match[1]) * 1024 : null;
  }, null);
}

/** Children of every thread of `pid` (a child belongs to the thread that forked it). */
export function childrenOf(pid: number): number[] {
  const tasks = safe(() => readdirSync(`/proc/${pid}/task`), [] as string[]);
  const out: number[] = [];
  for (const tid of tasks) {
    const text = safe(() => readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1"), "");
    for (const part of text.split(" ")) if (part) out.push(Number(part));
  }
  return out;
}

/** `roots` and all their live descendants, at most `limit` processes. */
export function walkTree(roots: number[], limit: number): ProcStat[] {
  const seen = new Set<number>();
  const found: ProcStat[] = [];
  const queue = [...roots];
  while (queue.length > 0 && found.length < limit) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const stat = readStat(pid);
    if (!stat) continue;
    found.push(stat);
    queue.push(...childrenOf(pid));
  }
  return found;
}

/** Live (non-zombie) processes whose session or process group matches, found by scanning /proc. */
export function membersOf(match: { session?: number; pgrp?: number }): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of safe(() => readdirSync("/proc"), [] as string[])) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const stat = readStat(Number(name));
    if (!stat || stat.state === "Z") continue;
    if (
      (match.session !== undefined && stat.session === match.session) ||
      (match.pgrp !== undefined && stat.pgrp === match.pgrp)
    )
      out.push(stat);
  }
  return out;
}

/** True when `pid` is alive, not a zombie, and is the same process that started at `startTime`. */
export function isSameLiveProcess(pid: number, startTime: string): boolean {
  const stat = readStat(pid);
  return stat !== null && stat.state !== "Z" && stat.startTime === startTime;
}

function readPageSize(): number {
  const auxv = safe(() => readFileSync("/proc/self/auxv"), null);
  if (!auxv) return 4096;
  for (let i = 0; i + 16 <= auxv.length; i += 16) {
    const key = auxv.readBigUInt64LE(i);
    if (key === 0n) break;
    if (key === 6n) return Number(auxv.readBigUInt64LE(i + 8));
  }
  return 4096;
}

function safe<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
