/**
 * A checked speedscope file → evidence. Each profile is a track (named after the
 * profile: py-spy names one per thread). Units decide the metric (speedscope-units.ts).
 *
 * Sampled: each sample's weight goes to its root-first stack through StackMeasures. Evented:
 * between two consecutive event times the open stack holds the time, as speedscope's own
 * importer attributes it; each O/C pair in a time unit is also a trace event (an `X`
 * slice with its depth). A close event that is not the innermost open frame closes what
 * is open above it (counted); one for a frame that is not open is ignored (counted);
 * frames still open at the end close at the profile's end value (counted).
 *
 * Samples, weights and events are read back from their spools, one at a time. Slices are
 * appended to `rows.events`; the generator yields whenever it holds `rows.flushAt` of
 * them, so the caller can write them out and start a new buffer.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import type { SampledStacks } from "../common/sampled-stacks.ts";
import { EVENT_OPEN } from "./scan-speedscope.ts";
import type { CheckedProfile, CheckedSpeedscope } from "./speedscope-checks.ts";
import { internFrames } from "./speedscope-frames.ts";
import type { EventCursor, SampleCursor, WeightCursor } from "./speedscope-records.ts";
import { metricOf, NS_PER } from "./speedscope-units.ts";

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

/** Where slices go: the current buffer of trace events (replaced by the caller after a yield). */
export interface SliceRows {
  events: TableBuffer;
  tracks: TableBuffer;
  /** Slices held before yielding. */
  flushAt: number;
}

export interface SpeedscopeCursors {
  samples: SampleCursor;
  weights: WeightCursor;
  events: EventCursor;
}

export function* speedscopeEvidence(
  file: CheckedSpeedscope,
  cursors: SpeedscopeCursors,
  out: SampledStacks,
  rows: SliceRows,
  adapter: { name: string; version: string },
): Generator<void, Omit<NormalizedEvidence, "tables">> {
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
  for (const [i, profile] of file.profiles.entries()) {
    const track = out.track(`profile:${i}`, file.name, profile.name);
    if (profile.type === "sampled") addSampled(profile, cursors, track, out, frameIndex, c);
    else {
      const slices = c.slices;
      yield* addEvented(
        profile,
        cursors.events,
        track,
        `profile:${i}`,
        out,
        frameIndex,
        names,
        rows,
        c,
      );
      if (c.slices > slices)
        rows.tracks.append({
          track_id: `profile:${i}`,
          pid: null,
          tid: null,
          process_name: null,
          thread_name: profile.name,
        });
    }
  }
  const [producer, producerVersion] = producerOf(file);
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer,
    producerVersion,
    limitations: [
      ...limitationsOf(c, file, out.frames.countUnsymbolized()),
      ...out.deepStacksLimitation(),
    ],
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
  p: CheckedProfile,
  cursors: SpeedscopeCursors,
  track: number,
  out: SampledStacks,
  frameIndex: number[],
  c: Counts,
): void {
  const m = metricOf("sampled", p.unit);
  const measures = out.metric(m.metric, m.unit);
  const path: number[] = [];
  const samples = cursors.samples;
  const weights = p.weights === null ? null : cursors.weights;
  samples.seek(p.samples.start);
  if (weights !== null) weights.seek(p.weights!.start);
  for (let s = 0; s < p.samples.count; s++) {
    samples.next();
    weights?.next();
    c.samples++;
    if (samples.length === 0) {
      c.emptySamples++;
      continue;
    }
    path.length = 0;
    for (let d = 0; d < samples.length; d++) path.push(frameIndex[samples.frames[d]!]!);
    const w = weights === null ? 1 : weights.value;
    if (w === 0) continue;
    // Unitless weights count samples (a collapsed-stacks import gives each stack its count).
    const count = m.metric === "samples" && Number.isInteger(w) ? w : 1;
    measures.add(path, track, count, Math.round(w * m.scale));
  }
}

function* addEvented(
  p: CheckedProfile,
  e: EventCursor,
  track: number,
  trackId: string,
  out: SampledStacks,
  frameIndex: number[],
  names: string[],
  rows: SliceRows,
  c: Counts,
): Generator<void, void> {
  const m = metricOf("evented", p.unit);
  const timed = NS_PER[p.unit] !== undefined;
  if (!timed) c.untimedEvented++;
  const measures = out.metric(m.metric, m.unit);
  const open: number[] = [];
  const openAt: number[] = [];
  const openEvent: number[] = [];
  const path: number[] = [];
  e.seek(p.events.start);
  const count = p.events.count;
  let last = p.startValue;
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
    rows.events.append({
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
  for (let k = 0; k < count; k++) {
    e.next();
    // The first event's time is where the profile's time starts.
    if (k === 0) last = e.at;
    const index = c.events++;
    let at = e.at;
    if (at < last) {
      c.backwards++;
      at = last;
    }
    advance(at);
    if (e.type === EVENT_OPEN) {
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
    if (rows.events.rowCount >= rows.flushAt) yield;
  }
  if (open.length > 0) {
    const end = Math.max(p.endValue, last);
    advance(end);
    c.unclosed += open.length;
    while (open.length > 0) close(end);
  }
}

function producerOf(file: CheckedSpeedscope): [string | null, string | null] {
  const exporter = file.exporter === null ? null : /^(.+?)@(.+)$/.exec(file.exporter);
  if (exporter) return [exporter[1]!, exporter[2]!];
  if (file.exporter !== null) return [file.exporter, null];
  return file.version !== null ? ["speedscope", file.version] : [null, null];
}

function limitationsOf(c: Counts, file: CheckedSpeedscope, unsymbolized: number): Limitation[] {
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
