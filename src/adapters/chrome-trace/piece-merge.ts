/**
 * Adds a piece scanned on its own (piece-scan.ts) to the whole trace's scan, in piece
 * order: its strings, tracks and slice frames are looked up (or made) in the trace's own
 * tables in the order the piece met them, which is the order one sequential scan would
 * have made them in; timestamps move from the piece's first timestamp to the trace's;
 * events go to the spool as if scanned here. The rows that follow are therefore exactly
 * those of a sequential scan (tests/adapters/chrome-trace-pieces.test.ts).
 */
import { tooLarge } from "../json-guard.ts";
import { NsClock } from "../common/time-ns.ts";
import type { EventSpool } from "../trace-events/event-spool.ts";
import type { SliceFrames } from "../trace-events/slice-frames.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import type { EmbeddedProfiles } from "./embedded-profiles.ts";
import type { EventScan } from "./event-scan.ts";
import type { ScannedPiece } from "./piece-scan.ts";
import type { TraceDocument } from "./trace-document.ts";
import { TRACE_FORMAT } from "./trace-producer.ts";
import type { TrackRegistry } from "./tracks.ts";

export interface PieceTarget {
  spool: EventSpool;
  strings: HostStrings;
  tracks: TrackRegistry;
  sliceFrames: SliceFrames;
  profiles: EmbeddedProfiles;
  scan: EventScan;
  document: TraceDocument;
  maxEvents: number;
}

/** Checks the event limit as a sequential scan would, before a piece's `events` are added. */
export function checkEventLimit(target: PieceTarget, events: number): void {
  if (target.spool.length + events > target.maxEvents)
    throw tooLarge(TRACE_FORMAT, "events", target.maxEvents + 1, target.maxEvents);
}

export function mergePiece(target: PieceTarget, piece: ScannedPiece): void {
  checkEventLimit(target, piece.events);
  const { spool, scan } = target;
  const strings = idMap(piece.stringIds, piece.strings, (s) => target.strings.intern(s));
  const tracks = piece.tracks.ids.map((id, t) =>
    target.tracks.trackWithId(id, piece.tracks.pids[t]!, piece.tracks.tids[t]!),
  );
  for (const naming of piece.namings) target.tracks.replay(naming, (t) => tracks[t]!);
  const frames = piece.frames.map(([name, category]) => target.sliceFrames.frameOf(name, category));
  if (piece.baseUs !== null) scan.clock ??= new NsClock(piece.baseUs);
  // Both bases are whole microseconds, so the shift is exact.
  const shiftNs =
    piece.baseUs !== null && scan.clock ? (piece.baseUs - scan.clock.baseUs) * 1000 : 0;
  for (const key of Object.keys(scan.counts) as (keyof typeof scan.counts)[])
    scan.counts[key] += piece.counts[key];
  const ends = scan.trackEndNs;
  piece.trackEndNs.forEach((end, t) => {
    const track = tracks[t]!;
    while (ends.length <= track) ends.push(Number.NEGATIVE_INFINITY);
    if (end + shiftNs > ends[track]!) ends[track] = end + shiftNs;
  });
  const c = piece.columns;
  // The spool takes the events a run at a time; columns copied as they are go in bulk.
  for (let done = 0; done < piece.events; ) {
    const { at, count } = spool.extend(piece.events - done);
    const cols = spool.cols;
    cols.kind.array.set(c.kind.subarray(done, done + count), at);
    cols.flags.array.set(c.flags.subarray(done, done + count), at);
    cols.durNs.array.set(c.durNs.subarray(done, done + count), at);
    cols.threadNs.array.set(c.threadNs.subarray(done, done + count), at);
    const track = cols.track.array;
    const start = cols.startNs.array;
    const frame = cols.frame.array;
    const name = cols.name.array;
    const cat = cols.cat.array;
    const ph = cols.ph.array;
    const argsRef = cols.argsRef.array;
    for (let i = 0; i < count; i++) {
      const from = done + i;
      const to = at + i;
      const t = c.track[from]!;
      // Only events on a track have a time; skipped ones keep a sequential scan's defaults.
      track[to] = t >= 0 ? tracks[t]! : -1;
      start[to] = t >= 0 ? c.startNs[from]! + shiftNs : 0;
      const f = c.frame[from]!;
      frame[to] = f >= 0 ? frames[f]! : -1;
      name[to] = mapped(strings, c.name[from]!);
      cat[to] = mapped(strings, c.cat[from]!);
      ph[to] = mapped(strings, c.ph[from]!);
      const args = c.argsRef[from]!;
      if (args >= 0) {
        const offset = c.argsStarts[args]!;
        argsRef[to] = cols.args.add(c.argsBytes.subarray(offset, offset + c.argsLengths[args]!));
      } else {
        argsRef[to] = -1;
      }
    }
    done += count;
  }
  for (const [fields, track, tsUs] of piece.profileEvents)
    target.profiles.observeEvent(fields, tracks[track]!, tsUs);
  if (piece.document) target.document.assign(piece.document);
}

function idMap(ids: Int32Array, values: string[], intern: (value: string) => number): Int32Array {
  let size = 0;
  for (const id of ids) size = Math.max(size, id + 1);
  const map = new Int32Array(size).fill(-1);
  ids.forEach((id, k) => {
    map[id] = intern(values[k]!);
  });
  return map;
}

const mapped = (map: Int32Array, id: number): number => (id < 0 ? -1 : map[id]!);
