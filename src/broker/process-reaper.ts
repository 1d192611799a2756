/**
 * Stops a child's process group and the descendants that left it, and records every
 * signal actually delivered. A signal is recorded only when it reached a live process,
 * so `signals_sent` is evidence, not intent. Descendants are identified by pid and start
 * time, so a recycled pid is never signalled. Where flameox is a child subreaper
 * (subreaper.ts), orphans re-parented to it since the leader started count as escaped
 * descendants too, so a double fork plus setsid does not get away.
 */
import type { SignalReason, SignalRecord } from "../domain/capture.ts";
import { membersOf, readStat } from "./process-tree.ts";
import { adoptedOrphans, reapAdopted } from "./subreaper.ts";
import type { ObservedProcess } from "./resource-sampler.ts";

export class ProcessReaper {
  readonly signals: SignalRecord[] = [];
  private readonly escapedKilled = new Set<number>();
  private groupKilled = false;

  constructor(
    private readonly leaderPid: number,
    private readonly startedAt: number,
    private readonly observed: () => Iterable<ObservedProcess>,
    /**
     * Also scan /proc for members of the leader's session (descendants that only changed group).
     */
    private readonly sweepSession: boolean,
    /**
     * The leader's start time when flameox is a subreaper: its adopted orphans since then are this
     * run's.
     */
    private readonly adoptSince: string | null = null,
  ) {}

  /**
   * After the final SIGKILL: how many escaped descendants are still alive once they had
   * `waitMs` to die (0 when none is left; adopted ones that died are reaped).
   */
  async survivors(waitMs: number): Promise<number> {
    const until = performance.now() + waitMs;
    for (;;) {
      reapAdopted();
      const alive = this.escapedDescendants().length;
      if (alive === 0 || performance.now() >= until) return alive;
      await Bun.sleep(5);
    }
  }

  /** Signals the whole group and every escaped descendant still alive. */
  signalAll(signal: "SIGTERM" | "SIGKILL", reason: SignalReason): void {
    if (this.signalGroup(signal)) this.record(signal, "group", reason);
    const escaped = this.escapedDescendants();
    let reached = 0;
    for (const p of escaped) {
      try {
        process.kill(p.pid, signal);
        reached += 1;
        this.escapedKilled.add(p.pid);
      } catch {
        // Gone between the check and the signal.
      }
    }
    if (reached > 0) this.record(signal, "descendant", reason, reached);
  }

  /** Escaped descendants that were sent a termination signal (SIGTERM usually suffices). */
  get escapedKilledCount(): number {
    return this.escapedKilled.size;
  }

  private signalGroup(signal: NodeJS.Signals): boolean {
    // A SIGKILL cannot be caught or outlived, and a member that forks while it is delivered
    // has its child killed too (fork backs out under a pending fatal signal). Members it
    // reached may still be listed while they exit, so sending it again would only add a
    // second, meaningless entry to the record.
    if (signal === "SIGKILL" && this.groupKilled) return false;
    try {
      process.kill(-this.leaderPid, 0);
    } catch {
      return false;
    }
    // kill(2) also succeeds for a group of zombies nobody reaped; only a live member counts.
    if (membersOf({ pgrp: this.leaderPid }).length === 0) return false;
    try {
      process.kill(-this.leaderPid, signal);
      if (signal === "SIGKILL") this.groupKilled = true;
      return true;
    } catch {
      return false;
    }
  }

  private escapedDescendants(): ObservedProcess[] {
    const found = new Map<number, ObservedProcess>();
    for (const p of this.observed()) {
      // The group it has now, not the one it had when seen: a process may be observed
      // between fork and its own setsid()/setpgid().
      const now = readStat(p.pid);
      if (now && now.state !== "Z" && now.startTime === p.startTime && now.pgrp !== this.leaderPid)
        found.set(p.pid, { ...p, pgrp: now.pgrp });
    }
    if (this.sweepSession) {
      for (const s of membersOf({ session: this.leaderPid })) {
        if (s.pgrp !== this.leaderPid && s.pid !== process.pid)
          found.set(s.pid, { pid: s.pid, startTime: s.startTime, pgrp: s.pgrp });
      }
    }
    if (this.adoptSince !== null) {
      // One still in the leader's group (adopted because its parent died first while the
      // group was being killed) is reached by the group's signal: it did not escape.
      for (const a of adoptedOrphans(this.adoptSince))
        if (a.pgrp !== this.leaderPid)
          found.set(a.pid, { pid: a.pid, startTime: a.startTime, pgrp: a.pgrp });
    }
    return [...found.values()];
  }

  private record(
    signal: "SIGTERM" | "SIGKILL",
    target: "group" | "descendant",
    reason: SignalReason,
    processes?: number,
  ): void {
    const entry: SignalRecord = {
      signal,
      target,
      reason,
      at_ms: Math.round(performance.now() - this.startedAt),
    };
    if (processes !== undefined) entry.processes = processes;
    this.signals.push(entry);
  }
}

/**
 * Kills the process group of a workload whose flameox parent died (used by recovery).
 * Only a live group leader with the recorded start time is signalled, never a reused pid.
 * Returns how many live members the group had.
 */
export function killOrphanedGroup(pid: number, startTime: string): number {
  const leader = readStat(pid);
  if (!leader || leader.startTime !== startTime || leader.pgrp !== pid || leader.state === "Z")
    return 0;
  const members = membersOf({ pgrp: pid }).length;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    return 0;
  }
  return members;
}
