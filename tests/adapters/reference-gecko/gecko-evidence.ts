/**
 * A Firefox Profiler profile → evidence: one track per thread (process name, pid and tid
 * as the file gives them), each sample's stack root first through the shared sampled-stack
 * accumulation, and markers with a duration as `X` trace events (instants as `i`) on the
 * thread's track, nested by time. Sample weights follow the thread's `weightType`:
 * `samples` counts samples (the Firefox Profiler's own default view), `tracing-ms` is
 * wall time (ns), `bytes` allocated space. A sampled thread's samples also measure
 * `wall_time`: each sample holds the time until the thread's next sample (the last one
 * a sampling interval), as speedscope and V8's cpuprofile attribute time.
 */
import type { FrameMetric } from "../../../src/domain/evidence-schema.ts";
import type { Limitation } from "../../../src/domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import type { TableBuffer } from "../../../src/domain/table-buffer.ts";
import { SampledStacks } from "../../../src/adapters/common/sampled-stacks.ts";
import { tooLarge } from "../../../src/adapters/json-guard.ts";
import {
  GECKO_FORMAT,
  type GeckoMarker,
  type GeckoProfile,
  type GeckoThread,
} from "./gecko-profile.ts";

const METRIC: Record<
  GeckoThread["weightType"],
  { metric: FrameMetric; unit: string; scale: number }
> = {
  samples: { metric: "samples", unit: "count", scale: 1 },
  "tracing-ms": { metric: "wall_time", unit: "ns", scale: 1e6 },
  bytes: { metric: "alloc_space", unit: "bytes", scale: 1 },
};
const ADDRESS = /^0x[0-9a-fA-F]+$/;

export function geckoEvidence(
  profile: GeckoProfile,
  maxEvents: number,
  adapter: { name: string; version: string },
): NormalizedEvidence {
  const total = profile.threads.reduce((n, t) => n + t.sampleStack.length + t.markers.length, 0);
  if (total > maxEvents) throw tooLarge(GECKO_FORMAT, "samples and markers", total, maxEvents);
  const out = new SampledStacks();
  const { trace_events: events, tracks } = emptyTables();
  let samples = 0;
  let withoutStack = 0;
  let eventIndex = 0;
  let weightedSum = 0;
  let timedSum = 0;
  let untimed = 0;
  let backwards = 0;
  const usedTracks = new Set<string>();
  profile.threads.forEach((thread, i) => {
    let trackId =
      thread.pid !== null && thread.tid !== null ? `${thread.pid}:${thread.tid}` : `thread:${i}`;
    // One OS thread can be two profile threads (samply splits a thread at exec: perf-exec, then the
    // program).
    if (usedTracks.has(trackId)) trackId = `${trackId}#${i}`;
    usedTracks.add(trackId);
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
    const path: number[] = [];
    for (let s = 0; s < thread.sampleStack.length; s++) {
      samples++;
      const stack = thread.sampleStack[s]!;
      if (stack === null) {
        withoutStack++;
        continue;
      }
      path.length = 0;
      // Prefixes point to earlier stacks (checked when read), so the walk ends.
      for (let at: number | null = stack; at !== null; at = thread.stackPrefix[at]!)
        path.push(frameOf[thread.stackFrame[at]!]!);
      path.reverse();
      const w = thread.sampleWeight[s]!;
      if (w === 0) continue;
      const value = Math.round(w * m.scale);
      weightedSum += value;
      if (weightedSum > Number.MAX_SAFE_INTEGER)
        throw tooLarge(GECKO_FORMAT, "summed sample weights", weightedSum, Number.MAX_SAFE_INTEGER);
      const t = thread.sampleTime[s]!;
      const firstNs = Number.isFinite(t) ? Math.round(t * 1e6) : Number.POSITIVE_INFINITY;
      measures.add(
        path,
        track,
        m.metric === "samples" && Number.isInteger(w) ? w : 1,
        value,
        firstNs,
      );
      if (timed !== null) {
        const next =
          s + 1 < thread.sampleTime.length ? thread.sampleTime[s + 1]! : t + profile.intervalMs;
        const span = next - t;
        if (!Number.isFinite(span)) untimed++;
        else if (span < 0) backwards++;
        else {
          const ns = Math.round(span * 1e6);
          timedSum += ns;
          if (timedSum > Number.MAX_SAFE_INTEGER)
            throw tooLarge(
              GECKO_FORMAT,
              "summed sample times (ns)",
              timedSum,
              Number.MAX_SAFE_INTEGER,
            );
          if (ns > 0) timed.add(path, track, 1, ns, firstNs);
        }
      }
    }
    const before = eventIndex;
    eventIndex = markerEvents(thread, trackId, events, eventIndex);
    if (eventIndex > before)
      tracks.append({
        track_id: trackId,
        pid: thread.pid,
        tid: thread.tid,
        process_name: thread.processName,
        thread_name: thread.name,
      });
  });
  const tables = out.emitAll();
  tables.trace_events = events;
  tables.tracks = tracks;
  const limitations: Limitation[] = [];
  if (samples === 0)
    limitations.push({ code: "no_samples", message: "The profile holds no samples" });
  if (withoutStack > 0)
    limitations.push({
      code: "samples_without_stack",
      message:
        "Samples without a stack (the thread was idle or its stack was not captured) are not " +
        "attributed to any frame",
      count: withoutStack,
    });
  if (untimed > 0)
    limitations.push({
      code: "samples_without_time",
      message: "Samples without a time (or before one without) have no wall_time",
      count: untimed,
    });
  if (backwards > 0)
    limitations.push({
      code: "out_of_order_samples",
      message: "Samples later than the thread's next sample have no wall_time",
      count: backwards,
    });
  if (profile.unpairedMarkers > 0)
    limitations.push({
      code: "unpaired_markers",
      message: "Interval markers whose start or end is missing were not imported",
      count: profile.unpairedMarkers,
    });
  const skipped = profile.notImported;
  if (skipped.cpuDeltas > 0)
    limitations.push({
      code: "cpu_deltas_not_imported",
      message:
        "Threads whose samples carry CPU time deltas (threadCPUDelta): samples are counted " +
        "and timed by wall clock; the CPU deltas are not imported",
      count: skipped.cpuDeltas,
    });
  if (skipped.allocations > 0)
    limitations.push({
      code: "allocations_not_imported",
      message: "Threads with JavaScript or native allocation tables, which are not imported",
      count: skipped.allocations,
    });
  if (skipped.counters > 0)
    limitations.push({
      code: "counters_not_imported",
      message: "Profile counters (memory, CPU usage, power…) are not imported",
      count: skipped.counters,
    });
  const unsymbolized = out.frames.countUnsymbolized();
  if (unsymbolized > 0)
    limitations.push({
      code: "missing_symbols",
      message: "Native frames named only by their address (the profile was not symbolicated)",
      count: unsymbolized,
    });
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer: profile.product,
    producerVersion: null,
    tables,
    limitations,
    summary: {
      shape: profile.shape,
      format_version: profile.version,
      threads: profile.threads.length,
      samples,
      markers: eventIndex,
      frames: out.frames.size,
      interval_ms: profile.intervalMs,
      metrics: out.metrics.join(","),
    },
  };
}

/** Markers as trace events on the thread's track, depth by nesting in start order. */
function markerEvents(
  thread: GeckoThread,
  trackId: string,
  events: TableBuffer,
  first: number,
): number {
  const order = thread.markers
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.startMs - b.m.startMs || dur(b.m) - dur(a.m) || a.i - b.i);
  const openEnds: number[] = [];
  let index = first;
  for (const { m } of order) {
    while (openEnds.length > 0 && openEnds[openEnds.length - 1]! <= m.startMs) openEnds.pop();
    events.append({
      event_index: index++,
      track_id: trackId,
      name: m.name,
      category: m.category,
      phase: m.endMs === null ? "i" : "X",
      ts_ns: BigInt(Math.round(m.startMs * 1e6)),
      dur_ns: m.endMs === null ? null : Math.round((m.endMs - m.startMs) * 1e6),
      depth: openEnds.length,
      args_json: null,
      flags: null,
      thread_dur_ns: null,
    });
    if (m.endMs !== null) openEnds.push(m.endMs);
  }
  return index;
}

const dur = (m: GeckoMarker) => (m.endMs === null ? -1 : m.endMs - m.startMs);
