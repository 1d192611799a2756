/**
 * The reference: a speedscope file parsed whole → evidence, one object per sample and event.
 * Production (src/adapters/speedscope/speedscope-evidence.ts) reads the same rules over
 * spooled records; the equivalence tests hold the two to the same rows. Each profile is a track
 * (named after the profile: py-spy names one per thread). Units decide the metric: sampled profiles
 * in a time unit are `cpu_time`, evented ones (instrumentation: a frame open from O to C)
 * `wall_time`, both in ns; `bytes` is `alloc_space`; `none` is `samples` (a weight is a count of
 * samples).
 *
 * Sampled: each sample's weight goes to its root-first stack through StackMeasures. Evented:
 * between two consecutive event times the open stack holds the time, as speedscope's own
 * importer attributes it; each O/C pair in a time unit is also a trace event (an `X`
 * slice with its depth). A close event that is not the innermost open frame closes what
 * is open above it (counted); one for a frame that is not open is ignored (counted);
 * frames still open at the end close at the profile's end value (counted).
 */
import type { FrameMetric } from "../../../src/domain/evidence-schema.ts";
import type { Limitation } from "../../../src/domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import type { TableBuffer } from "../../../src/domain/table-buffer.ts";
import { SampledStacks } from "../../../src/adapters/common/sampled-stacks.ts";
import { parseFailed, tooLarge } from "../../../src/adapters/json-guard.ts";
import {
  type EventedProfile,
  type SampledProfile,
  SPEEDSCOPE_FORMAT,
  type SpeedscopeFile,
  type SpeedscopeUnit,
} from "./speedscope-file.ts";
import { internFrames } from "../../../src/adapters/speedscope/speedscope-frames.ts";

const NS_PER: Partial<Record<SpeedscopeUnit, number>> = {
  nanoseconds: 1,
  microseconds: 1e3,
  milliseconds: 1e6,
  seconds: 1e9,
};

function metricOf(
  type: "sampled" | "evented",
  unit: SpeedscopeUnit,
): { metric: FrameMetric; unit: string; scale: number } {
  const ns = NS_PER[unit];
  if (ns !== undefined)
    return { metric: type === "sampled" ? "cpu_time" : "wall_time", unit: "ns", scale: ns };
  if (unit === "bytes") return { metric: "alloc_space", unit: "bytes", scale: 1 };
  return { metric: "samples", unit: "count", scale: 1 };
}

interface Counts {
  samples: number;
  events: number;
  emptySamples: number;
  mismatchedCloses: number;
  unmatchedCloses: number;
  unclosed: number;
  backwards: number;
  untimedEvented: number;
  slices: number;
}

export function speedscopeEvidence(
  file: SpeedscopeFile,
  maxEvents: number,
  adapter: { name: string; version: string },
): NormalizedEvidence {
  const out = new SampledStacks();
  const frameIndex = internFrames(file.frames, out.frames);
  const names = file.frames.map((f) => f.name);
  const c: Counts = {
    samples: 0,
    events: 0,
    emptySamples: 0,
    mismatchedCloses: 0,
    unmatchedCloses: 0,
    unclosed: 0,
    backwards: 0,
    untimedEvented: 0,
    slices: 0,
  };
  const total = file.profiles.reduce(
    (n, p) => n + (p.type === "sampled" ? p.samples.length : p.events.length),
    0,
  );
  if (total > maxEvents) throw tooLarge(SPEEDSCOPE_FORMAT, "samples and events", total, maxEvents);
  checkMagnitudes(file);
  const { trace_events: events, tracks } = emptyTables();
  file.profiles.forEach((profile, i) => {
    const track = out.track(`profile:${i}`, file.name, profile.name);
    if (profile.type === "sampled") addSampled(profile, track, out, frameIndex, c);
    else {
      const rows = events.rowCount;
      addEvented(profile, track, `profile:${i}`, out, frameIndex, names, events, c);
      if (events.rowCount > rows)
        tracks.append({
          track_id: `profile:${i}`,
          pid: null,
          tid: null,
          process_name: null,
          thread_name: profile.name,
        });
    }
  });
  const tables = out.emitAll();
  tables.trace_events = events;
  tables.tracks = tracks;
  const [producer, producerVersion] = producerOf(file);
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer,
    producerVersion,
    tables,
    limitations: limitationsOf(c, file, out.frames.countUnsymbolized()),
    summary: {
      profiles: file.profiles.length,
      sampled_profiles: file.profiles.filter((p) => p.type === "sampled").length,
      evented_profiles: file.profiles.filter((p) => p.type === "evented").length,
      samples: c.samples,
      events: c.events,
      slices: c.slices,
      frames: out.frames.size,
      units: [...new Set(file.profiles.map((p) => p.unit))].join(","),
      metrics: out.metrics.join(","),
    },
  };
}

function addSampled(
  p: SampledProfile,
  track: number,
  out: SampledStacks,
  frameIndex: number[],
  c: Counts,
): void {
  const m = metricOf("sampled", p.unit);
  const measures = out.metric(m.metric, m.unit);
  const path: number[] = [];
  for (let s = 0; s < p.samples.length; s++) {
    c.samples++;
    const stack = p.samples[s]!;
    if (stack.length === 0) {
      c.emptySamples++;
      continue;
    }
    path.length = 0;
    for (const f of stack) path.push(frameIndex[f]!);
    const w = p.weights[s]!;
    if (w === 0) continue;
    // Unitless weights count samples (a collapsed-stacks import gives each stack its count).
    const count = m.metric === "samples" && Number.isInteger(w) ? w : 1;
    measures.add(path, track, count, Math.round(w * m.scale));
  }
}

function addEvented(
  p: EventedProfile,
  track: number,
  trackId: string,
  out: SampledStacks,
  frameIndex: number[],
  names: string[],
  events: TableBuffer,
  c: Counts,
): void {
  const m = metricOf("evented", p.unit);
  const timed = NS_PER[p.unit] !== undefined;
  if (!timed) c.untimedEvented++;
  const measures = out.metric(m.metric, m.unit);
  const open: number[] = [];
  const openAt: number[] = [];
  const openEvent: number[] = [];
  const path: number[] = [];
  let last = p.events.length > 0 ? p.events[0]!.at : p.startValue;
  const advance = (at: number): void => {
    if (at > last && open.length > 0) {
      path.length = 0;
      for (const f of open) path.push(frameIndex[f]!);
      const span = at - last;
      // Unitless spans count samples, as unitless sample weights do.
      measures.add(
        path,
        track,
        m.metric === "samples" && Number.isInteger(span) ? span : 1,
        Math.round(span * m.scale),
      );
    }
    if (at > last) last = at;
  };
  const close = (at: number): void => {
    const frame = open.pop()!;
    const start = openAt.pop()!;
    const index = openEvent.pop()!;
    if (!timed) return;
    c.slices++;
    events.append({
      event_index: index,
      track_id: trackId,
      name: names[frame]!,
      category: null,
      phase: "X",
      ts_ns: BigInt(Math.round(start * m.scale)),
      dur_ns: Math.round((at - start) * m.scale),
      depth: open.length,
      args_json: null,
      flags: null,
      thread_dur_ns: null,
    });
  };
  for (const e of p.events) {
    const index = c.events++;
    let at = e.at;
    if (at < last) {
      c.backwards++;
      at = last;
    }
    advance(at);
    if (e.type === "O") {
      open.push(e.frame);
      openAt.push(at);
      openEvent.push(index);
      continue;
    }
    const depth = open.lastIndexOf(e.frame);
    if (depth < 0) {
      c.unmatchedCloses++;
      continue;
    }
    if (depth !== open.length - 1) c.mismatchedCloses++;
    while (open.length > depth) close(at);
  }
  if (open.length > 0) {
    const end = Math.max(p.endValue, last);
    advance(end);
    c.unclosed += open.length;
    while (open.length > 0) close(end);
  }
}

/**
 * Values are stored as int64 ns (or bytes, counts) and summed, edges across profiles too:
 * what a metric can add up to (sample weights; an evented profile's time span, which
 * bounds its spans' sum) must stay below 2^53.
 */
function checkMagnitudes(file: SpeedscopeFile): void {
  const totals = new Map<FrameMetric, number>();
  for (const [i, p] of file.profiles.entries()) {
    const { metric, scale, unit } = metricOf(p.type, p.unit);
    let extent = 0;
    if (p.type === "sampled") for (const w of p.weights) extent += w * scale;
    else
      for (const e of p.events)
        extent = Math.max(extent, 2 * Math.abs(e.at * scale), 2 * Math.abs(p.endValue * scale));
    const total = (totals.get(metric) ?? 0) + extent;
    totals.set(metric, total);
    if (!(total <= Number.MAX_SAFE_INTEGER)) {
      throw parseFailed(
        SPEEDSCOPE_FORMAT,
        `profiles up to profiles[${i}] hold ${total} ${unit} of ${metric}, beyond 2^53, ` +
          `which cannot be summed exactly`,
      );
    }
  }
}

function producerOf(file: SpeedscopeFile): [string | null, string | null] {
  const exporter = file.exporter === null ? null : /^(.+?)@(.+)$/.exec(file.exporter);
  if (exporter) return [exporter[1]!, exporter[2]!];
  if (file.exporter !== null) return [file.exporter, null];
  return file.version !== null ? ["speedscope", file.version] : [null, null];
}

function limitationsOf(c: Counts, file: SpeedscopeFile, unsymbolized: number): Limitation[] {
  const out: Limitation[] = [];
  if (file.profiles.length === 0 || c.samples + c.events === 0)
    out.push({ code: "no_samples", message: "The file holds no samples or events" });
  if (c.emptySamples > 0)
    out.push({
      code: "samples_without_stack",
      message: "Samples with an empty stack are not attributed to any frame",
      count: c.emptySamples,
    });
  if (c.mismatchedCloses > 0)
    out.push({
      code: "mismatched_close_events",
      message:
        "Close events for a frame that was not the innermost open one; the frames above it " +
        "were closed with it",
      count: c.mismatchedCloses,
    });
  if (c.unmatchedCloses > 0)
    out.push({
      code: "unmatched_close_events",
      message: "Close events for a frame that was not open were ignored",
      count: c.unmatchedCloses,
    });
  if (c.unclosed > 0)
    out.push({
      code: "unclosed_frames",
      message: "Frames still open at the end of their profile were closed at its end value",
      count: c.unclosed,
    });
  if (c.backwards > 0)
    out.push({
      code: "out_of_order_events",
      message: "Events earlier than the one before them were taken at that earlier event's time",
      count: c.backwards,
    });
  if (c.untimedEvented > 0)
    out.push({
      code: "untimed_events",
      message:
        "Evented profiles in unit none or bytes have no times: no trace events, only " +
        "per-stack totals",
      count: c.untimedEvented,
    });
  if (unsymbolized > 0)
    out.push({ code: "missing_symbols", message: "Frames without a name", count: unsymbolized });
  return out;
}
