/**
 * Reference, first pass over the parsed trace events (one object each): classifies each
 * event, resolves its track, converts ts/dur to integer nanoseconds (relative to the first
 * timestamp, see NsClock) and
 * interns slice frames. Results go into typed arrays indexed by event position, so the
 * later passes (B/E matching, nesting, row writing) allocate nothing per event.
 */
import { NsClock, durationUsToNs } from "../../../src/adapters/common/time-ns.ts";
import type { EmbeddedProfiles } from "../../../src/adapters/chrome-trace/embedded-profiles.ts";
import { FLAG_CLAMPED, FLAG_MISSING_DUR } from "../../../src/adapters/trace-events/event-flags.ts";
import type { SliceFrames } from "../../../src/adapters/trace-events/slice-frames.ts";
import { asyncIdOf, type TrackRegistry } from "../../../src/adapters/chrome-trace/tracks.ts";
import {
  KIND_BEGIN,
  KIND_COMPLETE,
  KIND_END,
  KIND_EVENT,
  UNNAMED,
  type ScanCounts,
} from "../../../src/adapters/trace-events/event-kinds.ts";

/** Phases of the Trace Event Format that are kept as plain events. */
const KNOWN_EVENT_PHASES = new Set([
  "i",
  "I",
  "n",
  "C",
  "b",
  "e",
  "S",
  "T",
  "p",
  "F",
  "s",
  "t",
  "f",
  "P",
  "O",
  "N",
  "D",
  "R",
  "(",
  ")",
  "v",
  "V",
  "c",
  "=",
]);

export interface TraceEventObject {
  ph?: unknown;
  name?: unknown;
  cat?: unknown;
  pid?: unknown;
  tid?: unknown;
  ts?: unknown;
  dur?: unknown;
  args?: unknown;
  id?: unknown;
  id2?: unknown;
  tts?: unknown;
  tdur?: unknown;
}

export interface ScannedTrace {
  events: readonly unknown[];
  kind: Uint8Array;
  track: Int32Array;
  startNs: Float64Array;
  durNs: Float64Array;
  /**
   * Thread time, ns: an X's thread duration (tdur), a B's or E's thread clock (tts), then a paired
   * B's slice thread time (NaN: none).
   */
  threadNs: Float64Array;
  frame: Int32Array;
  flags: Uint8Array;
  depth: Int32Array;
  /** Per track: positions of its X, B and E events, in input order. */
  slicesByTrack: number[][];
  /** Per track: the latest timestamp (or slice end) seen, in relative ns. */
  trackEndNs: number[];
  clock: NsClock;
  counts: ScanCounts;
}

function numeric(value: unknown): number {
  if (typeof value === "number") return value;
  return typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
}

export function scanEvents(
  events: readonly unknown[],
  tracks: TrackRegistry,
  sliceFrames: SliceFrames,
  profiles: EmbeddedProfiles,
): ScannedTrace {
  const n = events.length;
  const kind = new Uint8Array(n);
  const track = new Int32Array(n).fill(-1);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n).fill(Number.NaN);
  const threadNs = new Float64Array(n).fill(Number.NaN);
  const frame = new Int32Array(n).fill(-1);
  const flags = new Uint8Array(n);
  const slicesByTrack: number[][] = [];
  const trackEndNs: number[] = [];
  const counts: ScanCounts = {
    malformed: 0,
    missingTs: 0,
    unknownPhases: 0,
    clamped: 0,
    missingDur: 0,
    metadata: 0,
  };
  let clock: NsClock | null = null;

  for (let i = 0; i < n; i++) {
    const event = events[i] as TraceEventObject | null;
    if (
      typeof event !== "object" ||
      event === null ||
      Array.isArray(event) ||
      typeof event.ph !== "string"
    ) {
      counts.malformed++;
      continue;
    }
    const ph = event.ph;
    if (ph === "M") {
      counts.metadata++;
      readMetadata(event, tracks);
      continue;
    }
    const tsUs = numeric(event.ts);
    if (!Number.isFinite(tsUs)) {
      counts.missingTs++;
      continue;
    }
    clock ??= new NsClock(tsUs);
    // Nestable async events with an id go to their operation's track, where b/e pair like B/E.
    const async = ph === "b" || ph === "e" || ph === "n" ? asyncIdOf(event.id, event.id2) : null;
    const t =
      async === null
        ? tracks.trackOf(event.pid, event.tid)
        : tracks.asyncTrackOf(
            event.pid,
            typeof event.cat === "string" ? event.cat : null,
            async,
            ph !== "e" && typeof event.name === "string" ? event.name : null,
          );
    while (slicesByTrack.length <= t) {
      slicesByTrack.push([]);
      trackEndNs.push(Number.NEGATIVE_INFINITY);
    }
    const start = clock.relNs(tsUs);
    let end = start;
    track[i] = t;
    startNs[i] = start;
    if (ph === "X") {
      kind[i] = KIND_COMPLETE;
      if (event.dur === undefined) {
        flags[i] = FLAG_MISSING_DUR; // resolved once the track's end is known
        counts.missingDur++;
      } else {
        const dur = numeric(event.dur);
        if (Number.isFinite(dur) && dur >= 0) {
          durNs[i] = durationUsToNs(dur);
        } else {
          durNs[i] = 0;
          flags[i] = FLAG_CLAMPED;
          counts.clamped++;
        }
        end = start + durNs[i]!;
      }
      threadNs[i] = threadDurationNs(event.tdur);
    } else if (ph === "B" || ph === "E" || (async !== null && ph !== "n")) {
      kind[i] = ph === "B" || ph === "b" ? KIND_BEGIN : KIND_END;
      threadNs[i] = threadClockNs(event.tts);
    } else {
      kind[i] = KIND_EVENT;
      if (!KNOWN_EVENT_PHASES.has(ph)) counts.unknownPhases++;
      profiles.observeEvent(event, t, tsUs);
    }
    if (kind[i] !== KIND_EVENT) {
      slicesByTrack[t]!.push(i);
      if (kind[i] !== KIND_END)
        frame[i] = sliceFrames.frameOf(
          typeof event.name === "string" ? event.name : UNNAMED,
          typeof event.cat === "string" ? event.cat : null,
        );
    }
    if (end > trackEndNs[t]!) trackEndNs[t] = end;
  }
  return {
    events,
    kind,
    track,
    startNs,
    durNs,
    threadNs,
    frame,
    flags,
    depth: new Int32Array(n),
    slicesByTrack,
    trackEndNs,
    clock: clock ?? new NsClock(0),
    counts,
  };
}

/** An X event's `tdur` (µs) as ns; NaN when absent, not a number or negative. */
export function threadDurationNs(tdur: unknown): number {
  const us = numeric(tdur);
  return Number.isFinite(us) && us >= 0 ? durationUsToNs(us) : Number.NaN;
}

/** A B or E event's `tts` (µs, the thread's clock) as ns; NaN when absent or not a number. */
export function threadClockNs(tts: unknown): number {
  const us = numeric(tts);
  return Number.isFinite(us) ? us * 1000 : Number.NaN;
}

function readMetadata(event: TraceEventObject, tracks: TrackRegistry): void {
  const args = event.args as { name?: unknown } | undefined;
  const name = typeof args === "object" && args !== null ? args.name : undefined;
  if (typeof name !== "string") return;
  if (event.name === "process_name") tracks.nameProcess(event.pid, name);
  else if (event.name === "thread_name") tracks.nameThread(event.pid, event.tid, name);
  // Sort indexes and labels order the UI only; nothing here depends on them.
}
