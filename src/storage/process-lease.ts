/**
 * Run leases: which process owns a running run, named so that its death can be proven.
 * A pid alone proves nothing (pids are reused), so a lease is the boot id, the pid and
 * the process start time (clock ticks since boot). A lease is gone when the machine
 * rebooted, the pid is absent or a zombie, or the pid now belongs to a process that
 * started at another time; anything less certain is "unknown" and left alone.
 */
import { readFileSync } from "node:fs";
import { parseProcStat } from "../domain/proc-stat.ts";

export interface ProcessLease {
  pid: number;
  boot_id: string | null;
  start_time: string | null;
}

export type LeaseVerdict =
  | { state: "alive" }
  | { state: "gone"; cause: "rebooted" | "pid_absent" | "pid_reused" | "exited"; reason: string }
  | { state: "unknown"; reason: string };

export function currentBootId(): string | null {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim() || null;
  } catch {
    return null;
  }
}

export function processStartTime(pid: number): { startTime: string; zombie: boolean } | null {
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
    return stat ? { startTime: stat.startTime, zombie: stat.state === "Z" } : null;
  } catch {
    return null;
  }
}

/** The lease of this process. */
export function currentLease(): ProcessLease {
  return {
    pid: process.pid,
    boot_id: currentBootId(),
    start_time: processStartTime(process.pid)?.startTime ?? null,
  };
}

export function judgeLease(lease: {
  pid: number | null;
  boot_id: string | null;
  start_time: string | null;
}): LeaseVerdict {
  if (!lease.pid) return { state: "unknown", reason: "no lease was recorded" };
  const boot = currentBootId();
  if (!lease.boot_id || !boot)
    return {
      state: "unknown",
      reason: "the boot id is not known, so pid reuse cannot be ruled out",
    };
  if (lease.boot_id !== boot)
    return {
      state: "gone",
      cause: "rebooted",
      reason: "the machine rebooted since the lease was taken (boot id differs)",
    };
  const now = processStartTime(lease.pid);
  if (!now)
    return { state: "gone", cause: "pid_absent", reason: `process ${lease.pid} no longer exists` };
  if (!lease.start_time)
    return {
      state: "unknown",
      reason: `process ${lease.pid} exists and the lease has no start time to compare`,
    };
  if (now.startTime !== lease.start_time)
    return {
      state: "gone",
      cause: "pid_reused",
      reason: `pid ${lease.pid} now belongs to another process (start time differs)`,
    };
  if (now.zombie)
    return {
      state: "gone",
      cause: "exited",
      reason: `process ${lease.pid} has exited (zombie awaiting its parent)`,
    };
  return { state: "alive" };
}
