/**
 * Firefox Profiler threads → evidence, one thread at a time: one track per thread
 * (process name, pid and tid as the file gives them), each sample's stack root first
 * through the shared sampled-stack accumulation, and markers with a duration as `X`
 * trace events (instants as `i`) on the thread's track, nested by time. Sample weights
 * follow the thread's `weightType`: `samples` counts samples (the Firefox Profiler's own
 * default view), `tracing-ms` is wall time (ns), `bytes` allocated space. A sampled
 * thread's samples also measure `wall_time`: each sample holds the time until the
 * thread's next sample (the last one a sampling interval), as speedscope and V8's
 * cpuprofile attribute time.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables } from "../../domain/normalized-evidence.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { SampledStacks, type StackStorage } from "../common/sampled-stacks.ts";
import { expectationFailed, tooLarge } from "../json-guard.ts";
import {
  GECKO_FORMAT,
  type GeckoThread,
  MISSING_PREFIX,
  type ProfileCounts,
} from "./gecko-thread.ts";
import { StackSums } from "./stack-sums.ts";

const METRIC: Record<
  GeckoThread["weightType"],
  { metric: FrameMetric; unit: string; scale: number }
> = {
  samples: { metric: "samples", unit: "count", scale: 1 },
  "tracing-ms": { metric: "wall_time", unit: "ns", scale: 1e6 },
  bytes: { metric: "alloc_space", unit: "bytes", scale: 1 },
};
const ADDRESS = /^0x[0-9a-fA-F]+$/;

/**
 * Fails on a sampled stack whose walk to the root meets a missing prefix; marks the stacks on the
 * way as checked (a walk stops at one already checked: prefixes point to earlier stacks, checked
 * when read, so every walk ends).
 */
function checkPath(thread: GeckoThread, stack: number, checked: Uint8Array): void {
  for (let at = stack; at >= 0 && checked[at] === 0; at = thread.stackPrefix[at]!) {
    if (thread.stackPrefix[at] === MISSING_PREFIX)
      throw expectationFailed(
        GECKO_FORMAT,
        `stackTable.prefix[${at}]`,
        "null or a stack index",
        undefined,
      );
    checked[at] = 1;
  }
}

export interface ProfileFacts {
  shape: "raw" | "processed";
  version: number | null;
  product: string | null;
  intervalMs: number;
  counters: number;
}

export class GeckoEvidence {
  readonly out: SampledStacks;
  /** Trace events not yet handed over (all of them without `onEvents`). */
  events: TableBuffer;
  readonly tracks: TableBuffer;
  private samples = 0;
  private withoutStack = 0;
  private eventIndex = 0;
  private weightedSum = 0;
  private timedSum = 0;
  private untimed = 0;
  private backwards = 0;
  private threads = 0;
  private total = 0;
  private readonly usedTracks = new Set<string>();

  constructor(
    storage: StackStorage,
    private readonly maxEvents: number,
    /** Takes full event buffers as they fill (streaming); the buffer is replaced. */
    private readonly onEvents: ((events: TableBuffer) => void) | null = null,
  ) {
    this.out = new SampledStacks(storage);
    const { trace_events, tracks } = emptyTables();
    this.events = trace_events;
    this.tracks = tracks;
  }

  addThread(thread: GeckoThread, intervalMs: number): void {
    const i = this.threads++;
    this.total += thread.sampleCount + thread.markers.count;
    if (this.total > this.maxEvents)
      throw tooLarge(GECKO_FORMAT, "samples and markers", this.total, this.maxEvents);
    const out = this.out;
    let trackId =
      thread.pid !== null && thread.tid !== null ? `${thread.pid}:${thread.tid}` : `thread:${i}`;
    // One OS thread can be two profile threads (samply splits a thread at exec: perf-exec, then
    // the program).
    if (this.usedTracks.has(trackId)) trackId = `${trackId}#${i}`;
    this.usedTracks.add(trackId);
    const track = out.track(trackId, thread.processName, thread.name);
    const m = METRIC[thread.weightType];
    const measures = out.metric(m.metric, m.unit);
    const frameOf = thread.frames.map((f) => {
      const language = f.js ? "javascript" : "native";
      return out.frames.intern(
        JSON.stringify(["gecko", language, f.name, f.module, f.file, f.line, f.column]),
        {
          language,
          function: f.name,
          module: f.module,
          file: f.file,
          line: f.line,
          column: f.column,
          symbolization: f.name === "" || ADDRESS.test(f.name) ? "absent" : "complete",
        },
      );
    });
    const timed = thread.weightType === "samples" ? out.metric("wall_time", "ns") : null;
    const stackCount = thread.stackPrefix.length;
    const sums = new StackSums(stackCount);
    const timedSums = timed !== null ? new StackSums(stackCount) : null;
    const checked = new Uint8Array(stackCount);
    const n = thread.sampleCount;
    const reader = thread.samples();
    if (n > 0) reader.next();
    for (let s = 0; s < n; s++) {
      const stack = reader.stack;
      const t = reader.time;
      const w = reader.weight;
      // The next sample's time ends this one; it is read (and checked) now.
      if (s + 1 < n) reader.next();
      this.samples++;
      if (stack < 0) {
        this.withoutStack++;
        continue;
      }
      if (checked[stack] === 0) checkPath(thread, stack, checked);
      if (w === 0) continue;
      const value = Math.round(w * m.scale);
      this.weightedSum += value;
      if (this.weightedSum > Number.MAX_SAFE_INTEGER)
        throw tooLarge(
          GECKO_FORMAT,
          "summed sample weights",
          this.weightedSum,
          Number.MAX_SAFE_INTEGER,
        );
      const firstNs = Number.isFinite(t) ? Math.round(t * 1e6) : Number.POSITIVE_INFINITY;
      sums.add(stack, m.metric === "samples" && Number.isInteger(w) ? w : 1, value, firstNs);
      if (timedSums !== null) {
        const next = s + 1 < n ? reader.time : t + intervalMs;
        const span = next - t;
        if (!Number.isFinite(span)) this.untimed++;
        else if (span < 0) this.backwards++;
        else {
          const ns = Math.round(span * 1e6);
          this.timedSum += ns;
          if (this.timedSum > Number.MAX_SAFE_INTEGER)
            throw tooLarge(
              GECKO_FORMAT,
              "summed sample times (ns)",
              this.timedSum,
              Number.MAX_SAFE_INTEGER,
            );
          if (ns > 0) timedSums.add(stack, 1, ns, firstNs);
        }
      }
    }
    // Each sampled stack once, root first.
    const path: number[] = [];
    const pathOf = (stack: number): number[] => {
      path.length = 0;
      for (let at = stack; at >= 0; at = thread.stackPrefix[at]!)
        path.push(frameOf[thread.stackFrame[at]!]!);
      return path.reverse();
    };
    sums.forEach((stack, count, value, firstNs) =>
      measures.add(pathOf(stack), track, count, value, firstNs),
    );
    timedSums?.forEach((stack, count, ns, firstNs) =>
      timed!.add(pathOf(stack), track, count, ns, firstNs),
    );
    const before = this.eventIndex;
    this.markerEvents(thread, trackId);
    if (this.eventIndex > before)
      this.tracks.append({
        track_id: trackId,
        pid: thread.pid,
        tid: thread.tid,
        process_name: thread.processName,
        thread_name: thread.name,
      });
  }

  /** Markers as trace events on the thread's track, depth by nesting in start order. */
  private markerEvents(thread: GeckoThread, trackId: string): void {
    const mk = thread.markers;
    const start = mk.start.array;
    const end = mk.end.array;
    const dur = (i: number) => (Number.isNaN(end[i]!) ? -1 : end[i]! - start[i]!);
    const order = new Uint32Array(mk.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort((a, b) => start[a]! - start[b]! || dur(b) - dur(a) || a - b);
    const openEnds: number[] = [];
    const strings = thread.strings;
    for (const i of order) {
      const s = start[i]!;
      const e = end[i]!;
      const instant = Number.isNaN(e);
      while (openEnds.length > 0 && openEnds[openEnds.length - 1]! <= s) openEnds.pop();
      const category = mk.category.array[i]!;
      this.events.append({
        event_index: this.eventIndex++,
        track_id: trackId,
        name: strings.get(mk.name.array[i]!),
        category: category < 0 ? null : strings.get(category),
        phase: instant ? "i" : "X",
        ts_ns: BigInt(Math.round(s * 1e6)),
        dur_ns: instant ? null : Math.round((e - s) * 1e6),
        depth: openEnds.length,
        args_json: null,
        flags: null,
        thread_dur_ns: null,
      });
      if (!instant) openEnds.push(e);
      if (this.onEvents !== null && this.events.rowCount >= EVENT_BATCH) this.handOver();
    }
  }

  /** Hands the events gathered so far over (streaming). */
  handOver(): void {
    if (this.onEvents === null || this.events.rowCount === 0) return;
    this.onEvents(this.events);
    this.events = emptyTables().trace_events;
  }

  limitationsAndSummary(
    facts: ProfileFacts,
    counts: ProfileCounts,
  ): { limitations: Limitation[]; summary: Record<string, string | number | null> } {
    const limitations: Limitation[] = [];
    if (this.samples === 0)
      limitations.push({ code: "no_samples", message: "The profile holds no samples" });
    if (this.withoutStack > 0)
      limitations.push({
        code: "samples_without_stack",
        message:
          "Samples without a stack (the thread was idle or its stack was not captured) are " +
          "not attributed to any frame",
        count: this.withoutStack,
      });
    if (this.untimed > 0)
      limitations.push({
        code: "samples_without_time",
        message: "Samples without a time (or before one without) have no wall_time",
        count: this.untimed,
      });
    if (this.backwards > 0)
      limitations.push({
        code: "out_of_order_samples",
        message: "Samples later than the thread's next sample have no wall_time",
        count: this.backwards,
      });
    if (counts.unpairedMarkers > 0)
      limitations.push({
        code: "unpaired_markers",
        message: "Interval markers whose start or end is missing were not imported",
        count: counts.unpairedMarkers,
      });
    if (counts.cpuDeltas > 0)
      limitations.push({
        code: "cpu_deltas_not_imported",
        message:
          "Threads whose samples carry CPU time deltas (threadCPUDelta): samples are counted " +
          "and timed by wall clock; the CPU deltas are not imported",
        count: counts.cpuDeltas,
      });
    if (counts.allocations > 0)
      limitations.push({
        code: "allocations_not_imported",
        message: "Threads with JavaScript or native allocation tables, which are not imported",
        count: counts.allocations,
      });
    if (facts.counters > 0)
      limitations.push({
        code: "counters_not_imported",
        message: "Profile counters (memory, CPU usage, power…) are not imported",
        count: facts.counters,
      });
    const unsymbolized = this.out.frames.countUnsymbolized();
    if (unsymbolized > 0)
      limitations.push({
        code: "missing_symbols",
        message: "Native frames named only by their address (the profile was not symbolicated)",
        count: unsymbolized,
      });
    limitations.push(...this.out.deepStacksLimitation());
    return {
      limitations,
      summary: {
        shape: facts.shape,
        format_version: facts.version,
        threads: this.threads,
        samples: this.samples,
        markers: this.eventIndex,
        frames: this.out.frames.size,
        interval_ms: facts.intervalMs,
        metrics: this.out.metrics.join(","),
      },
    };
  }
}

/** Trace events handed to the sink at a time. */
const EVENT_BATCH = 16384;
