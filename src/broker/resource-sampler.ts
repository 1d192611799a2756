/**
 * Samples a running process tree from /proc at a declared interval: the sum of RSS over
 * the tree (peak kept), the free bytes of the workspace filesystem (minimum kept), and
 * every descendant it sees (pid and start time), so descendants that later leave the
 * process group or get reparented can still be found and killed at cleanup. A policy
 * limit crossed is reported once through `onPolicy`.
 */
import type { UnavailableMetric } from "../domain/capture.ts";
import { freeBytes } from "./disk-usage.ts";
import {
  PAGE_SIZE,
  PROCFS_AVAILABLE,
  readHighWaterRss,
  readStat,
  walkTree,
} from "./process-tree.ts";

export interface SamplingRequest {
  intervalMs: number;
  /** A path on the filesystem whose free bytes are watched (the workspace staging root). */
  freeBytesPath?: string;
  maxTreeRssBytes?: number;
  minFreeBytes?: number;
  maxProcesses?: number;
}

export interface PolicyViolation {
  metric: "peak_rss_bytes" | "minimum_free_bytes";
  limit: number;
  observed: number;
}

export interface SamplerReport {
  sampling_interval_ms: number;
  samples: number;
  peak_rss_bytes: number | null;
  /**
   * The leader's own high-water RSS (VmHWM) at its last sample: a lower bound that misses
   * only growth after that sample. Unlike the exit status's ru_maxrss it does not include
   * the spawning process's RSS, which Linux folds into an exec'd child's figure.
   */
  leader_hwm_bytes: number | null;
  minimum_free_bytes: number | null;
  max_processes_observed: number;
  sampler_cpu_ms: number;
  unavailable_metrics: UnavailableMetric[];
}

export interface ObservedProcess {
  pid: number;
  startTime: string;
  pgrp: number;
}

export class ResourceSampler {
  /** Every descendant seen, by pid; the start time tells a reused pid apart. */
  readonly observed = new Map<number, ObservedProcess>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private samples = 0;
  private treeSamples = 0;
  private peakRss: number | null = null;
  private leaderHwm: number | null = null;
  private minFree: number | null = null;
  private freeReason: string | null = null;
  private maxProcesses = 0;
  private cpuMs = 0;
  private violated = false;

  constructor(
    private readonly rootPid: number,
    private readonly request: SamplingRequest,
    private readonly onPolicy: (violation: PolicyViolation) => void,
  ) {}

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.request.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * One synchronous sample. Its wall time is charged to `sampler_cpu_ms` (it never waits on
   * anything but procfs).
   */
  tick(): void {
    const began = performance.now();
    this.samples += 1;
    if (PROCFS_AVAILABLE) this.sampleTree();
    if (this.request.freeBytesPath) {
      const free = freeBytes(this.request.freeBytesPath);
      if (free.bytes === null) this.freeReason = free.reason;
      else this.minFree = this.minFree === null ? free.bytes : Math.min(this.minFree, free.bytes);
      if (
        free.bytes !== null &&
        this.request.minFreeBytes &&
        free.bytes < this.request.minFreeBytes
      ) {
        this.violate({
          metric: "minimum_free_bytes",
          limit: this.request.minFreeBytes,
          observed: free.bytes,
        });
      }
    }
    this.cpuMs += performance.now() - began;
  }

  report(): SamplerReport {
    const unavailable: UnavailableMetric[] = [];
    if (!PROCFS_AVAILABLE)
      unavailable.push({
        metric: "peak_rss_bytes",
        reason: "procfs is not available on this platform",
      });
    else if (this.treeSamples === 0)
      unavailable.push({
        metric: "peak_rss_bytes",
        reason: "the process exited before the first sample",
      });
    if (!this.request.freeBytesPath)
      unavailable.push({
        metric: "minimum_free_bytes",
        reason: "no filesystem was named for sampling",
      });
    else if (this.minFree === null)
      unavailable.push({ metric: "minimum_free_bytes", reason: this.freeReason ?? "not sampled" });
    return {
      sampling_interval_ms: this.request.intervalMs,
      samples: this.samples,
      peak_rss_bytes: this.treeSamples > 0 ? this.peakRss : null,
      leader_hwm_bytes: this.leaderHwm,
      minimum_free_bytes: this.minFree,
      max_processes_observed: this.maxProcesses,
      sampler_cpu_ms: Math.round(this.cpuMs * 1000) / 1000,
      unavailable_metrics: unavailable,
    };
  }

  private sampleTree(): void {
    // Walk from the leader and from every observed descendant still alive: a reparented
    // descendant is no longer below the leader but is still part of the workload.
    const roots = [this.rootPid];
    for (const p of this.observed.values()) {
      const stat = readStat(p.pid);
      if (stat && stat.startTime === p.startTime && stat.state !== "Z") roots.push(p.pid);
    }
    const tree = walkTree(roots, this.request.maxProcesses ?? 10_000).filter(
      (s) => s.state !== "Z",
    );
    if (tree.length === 0) return;
    this.treeSamples += 1;
    let rss = 0;
    for (const stat of tree) {
      rss += stat.rssPages * PAGE_SIZE;
      if (stat.pid !== this.rootPid && !this.observed.has(stat.pid)) {
        this.observed.set(stat.pid, { pid: stat.pid, startTime: stat.startTime, pgrp: stat.pgrp });
      }
    }
    this.maxProcesses = Math.max(this.maxProcesses, tree.length);
    this.peakRss = Math.max(this.peakRss ?? 0, rss);
    const hwm = readHighWaterRss(this.rootPid);
    if (hwm !== null) this.leaderHwm = Math.max(this.leaderHwm ?? 0, hwm);
    if (this.request.maxTreeRssBytes && rss > this.request.maxTreeRssBytes) {
      this.violate({
        metric: "peak_rss_bytes",
        limit: this.request.maxTreeRssBytes,
        observed: rss,
      });
    }
  }

  private violate(violation: PolicyViolation): void {
    if (this.violated) return;
    this.violated = true;
    this.onPolicy(violation);
  }
}
