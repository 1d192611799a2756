/**
 * First pass over the trace events, batch by batch as the WASM scanner completes them:
 * classifies each event (X and B/E are slices; nestable async b/e with an id pair like
 * B/E on their operation's track; M names processes and threads; the other phases are
 * plain events), resolves its track, converts ts/dur to integer nanoseconds relative to
 * the first timestamp (see NsClock), interns slice frames and hands profile events to
 * EmbeddedProfiles. Each event becomes one row of the spool's columns, read from the
 * scanner's record slots without an object per event.
 */
import { NsClock, durationUsToNs } from "../common/time-ns.ts";
import {
  type JsonBatch,
  TAG_FALSE,
  TAG_JSON,
  TAG_NUMBER,
  TAG_OBJECT,
  TAG_SLOW,
  TAG_STRING,
  TAG_TRUE,
  TAG_TRUNCATED,
} from "../wasm/json-batch.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import type { ProfileEventFields } from "./embedded-profiles.ts";
import {
  FLAG_ARGS_TRUNCATED,
  FLAG_CLAMPED,
  FLAG_MISSING_DUR,
} from "../trace-events/event-flags.ts";
import {
  KIND_BEGIN,
  KIND_COMPLETE,
  KIND_END,
  KIND_EVENT,
  noScanCounts,
} from "../trace-events/event-kinds.ts";
import type { SliceFrames } from "../trace-events/slice-frames.ts";
import { asyncIdOf, type TrackRegistry } from "./tracks.ts";
import type { TraceColumns } from "../trace-events/trace-columns.ts";
import type { TextStore } from "../common/growable.ts";
import {
  E_ARGS,
  E_CAT,
  E_DUR,
  E_ID,
  E_ID2,
  E_NAME,
  E_PH,
  E_PID,
  E_TDUR,
  E_TID,
  E_TS,
  E_TTS,
} from "./trace-program.ts";

const KNOWN_EVENT_PHASES = new Set([
  "i",
  "I",
  "C",
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
const PH_OTHER = 0;
const PH_X = 1;
const PH_B = 2;
const PH_E = 3;
const PH_M = 4;
const PH_UNKNOWN = 5;
/** Nestable async phases (b, e, n): on their operation's track when they carry an id. */
const PH_ASYNC_BEGIN = 6;
const PH_ASYNC_END = 7;
const PH_ASYNC_INSTANT = 8;

const encoder = new TextEncoder();

/**
 * Where scanned events go: the spool, or the columns of one piece of a document scanned on its own.
 */
export interface ScannedEvents {
  /** The run being filled; an index from `add()` is valid until the next `add()`. */
  readonly cols: TraceColumns;
  /** Adds an event (skipped until its fields say otherwise); returns its index in `cols`. */
  add(): number;
}

/**
 * Who reads the events that may carry a V8 profile (EmbeddedProfiles, or a piece's record of them).
 */
export interface ProfileEventObserver {
  observeEvent(event: ProfileEventFields, track: number, tsUs: number): void;
}

export class EventScan {
  readonly counts = noScanCounts();
  /** Per track: the latest end of its events (what open-ended slices are closed at). */
  readonly trackEndNs: number[] = [];
  clock: NsClock | null = null;
  private readonly phClass: number[] = [];
  private readonly truncator: ArgsTruncator;
  // The last event's (pid, tid) slots and track: consecutive events mostly share a thread.
  private lastPid = [-1, 0, 0];
  private lastTid = [-1, 0, 0];
  private lastTrack = -1;
  private readonly text = (id: number): string => this.strings.get(id);
  /**
   * Thread tracks by numeric pid then tid: most traces' ids are numbers, and their text form is
   * costly to make per event.
   */
  private readonly numericTracks = new Map<number, Map<number, number>>();

  constructor(
    private readonly spool: ScannedEvents,
    private readonly strings: HostStrings,
    private readonly tracks: TrackRegistry,
    private readonly sliceFrames: SliceFrames,
    private readonly profiles: ProfileEventObserver,
    maxArgsBytes: number,
  ) {
    this.truncator = new ArgsTruncator(maxArgsBytes);
  }

  event(b: JsonBatch, r: number): void {
    const i = this.spool.add();
    const cols = this.spool.cols;
    if (b.selfKind(r) !== TAG_OBJECT || b.kind(r, E_PH) !== TAG_STRING) {
      this.counts.malformed++;
      return;
    }
    const ph = b.stringId(r, E_PH);
    const phClass = this.phClass[ph] ?? this.classify(ph);
    if (phClass === PH_M) {
      this.counts.metadata++;
      this.readMetadata(b, r);
      return;
    }
    const tsUs = numeric(b, r, E_TS);
    if (!Number.isFinite(tsUs)) {
      this.counts.missingTs++;
      return;
    }
    this.clock ??= new NsClock(tsUs);
    const async = phClass >= PH_ASYNC_BEGIN ? asyncIdOf(b.value(r, E_ID), b.value(r, E_ID2)) : null;
    const t =
      async === null
        ? this.trackOf(b, r)
        : this.tracks.asyncTrackOf(
            idPart(b, r, E_PID),
            b.string(r, E_CAT) ?? null,
            async,
            phClass !== PH_ASYNC_END ? (b.string(r, E_NAME) ?? null) : null,
          );
    while (this.trackEndNs.length <= t) this.trackEndNs.push(Number.NEGATIVE_INFINITY);
    const start = this.clock.relNs(tsUs);
    let end = start;
    cols.track.array[i] = t;
    cols.startNs.array[i] = start;
    let kind = KIND_EVENT;
    if (phClass === PH_X) {
      kind = KIND_COMPLETE;
      if (b.kind(r, E_DUR) === 0) {
        cols.flags.array[i] = FLAG_MISSING_DUR;
        this.counts.missingDur++;
      } else {
        const dur = numeric(b, r, E_DUR);
        if (Number.isFinite(dur) && dur >= 0) {
          cols.durNs.array[i] = durationUsToNs(dur);
        } else {
          cols.durNs.array[i] = 0;
          cols.flags.array[i] = FLAG_CLAMPED;
          this.counts.clamped++;
        }
        end = start + cols.durNs.array[i]!;
      }
      const tdur = numeric(b, r, E_TDUR);
      if (Number.isFinite(tdur) && tdur >= 0) cols.threadNs.array[i] = durationUsToNs(tdur);
    } else if (
      phClass === PH_B ||
      phClass === PH_E ||
      (async !== null && phClass !== PH_ASYNC_INSTANT)
    ) {
      kind = phClass === PH_B || phClass === PH_ASYNC_BEGIN ? KIND_BEGIN : KIND_END;
      // The thread's clock, in ns (µs × 1000, not rounded: only differences of two readings are
      // kept).
      const tts = numeric(b, r, E_TTS);
      if (Number.isFinite(tts)) cols.threadNs.array[i] = tts * 1000;
    } else {
      if (phClass === PH_UNKNOWN) this.counts.unknownPhases++;
      if (b.special(r)) this.profiles.observeEvent(profileEvent(b, r), t, tsUs);
    }
    cols.kind.array[i] = kind;
    const name = b.stringId(r, E_NAME);
    const cat = b.stringId(r, E_CAT);
    cols.name.array[i] = name;
    cols.cat.array[i] = cat;
    cols.ph.array[i] = ph;
    if (kind !== KIND_EVENT && kind !== KIND_END)
      cols.frame.array[i] = this.sliceFrames.frameOfIds(name, cat, this.text);
    if (kind !== KIND_END && b.kind(r, E_ARGS) === TAG_JSON) {
      cols.argsRef.array[i] = this.truncator.store(b, r, E_ARGS, cols.args);
      if (this.truncator.truncated) cols.flags.array[i]! |= FLAG_ARGS_TRUNCATED;
    }
    if (end > this.trackEndNs[t]!) this.trackEndNs[t] = end;
  }

  private classify(ph: number): number {
    const value = this.strings.get(ph);
    const c =
      value === "X"
        ? PH_X
        : value === "B"
          ? PH_B
          : value === "E"
            ? PH_E
            : value === "M"
              ? PH_M
              : value === "b"
                ? PH_ASYNC_BEGIN
                : value === "e"
                  ? PH_ASYNC_END
                  : value === "n"
                    ? PH_ASYNC_INSTANT
                    : KNOWN_EVENT_PHASES.has(value)
                      ? PH_OTHER
                      : PH_UNKNOWN;
    this.phClass[ph] = c;
    return c;
  }

  private trackOf(b: JsonBatch, r: number): number {
    const pid = this.lastPid;
    const tid = this.lastTid;
    if (this.lastTrack >= 0 && sameSlot(b, r, E_PID, pid) && sameSlot(b, r, E_TID, tid))
      return this.lastTrack;
    if (b.kind(r, E_PID) === TAG_NUMBER && b.kind(r, E_TID) === TAG_NUMBER) {
      const p = b.num(r, E_PID);
      const t = b.num(r, E_TID);
      let byTid = this.numericTracks.get(p);
      if (byTid === undefined) this.numericTracks.set(p, (byTid = new Map()));
      let track = byTid.get(t);
      if (track === undefined)
        byTid.set(t, (track = this.tracks.trackOf(idPart(b, r, E_PID), idPart(b, r, E_TID))));
      this.lastTrack = track;
    } else {
      this.lastTrack = this.tracks.trackOf(idPart(b, r, E_PID), idPart(b, r, E_TID));
    }
    remember(b, r, E_PID, pid);
    remember(b, r, E_TID, tid);
    return this.lastTrack;
  }

  private readMetadata(b: JsonBatch, r: number): void {
    if (b.kind(r, E_ARGS) !== TAG_JSON) return;
    const args = JSON.parse(new TextDecoder().decode(b.textBytes(r, E_ARGS))) as {
      name?: unknown;
    } | null;
    const name = typeof args === "object" && args !== null ? args.name : undefined;
    if (typeof name !== "string") return;
    const eventName = b.string(r, E_NAME);
    if (eventName === "process_name") this.tracks.nameProcess(idPart(b, r, E_PID), name);
    else if (eventName === "thread_name")
      this.tracks.nameThread(idPart(b, r, E_PID), idPart(b, r, E_TID), name);
  }
}

/**
 * `Number(value)` for numbers and numeric strings (as JSON.parse then Number would), NaN otherwise.
 */
function numeric(b: JsonBatch, r: number, slot: number): number {
  const kind = b.kind(r, slot);
  if (kind === TAG_NUMBER) return b.num(r, slot);
  if (kind === TAG_STRING) {
    const text = b.string(r, slot)!;
    return text.trim() !== "" ? Number(text) : Number.NaN;
  }
  return Number.NaN;
}

/** tracks.ts `idPart`: the canonical text of a pid/tid value. */
function idPart(b: JsonBatch, r: number, slot: number): string | null {
  switch (b.kind(r, slot)) {
    case TAG_STRING:
      return b.string(r, slot)!;
    case TAG_NUMBER:
      return String(b.num(r, slot));
    case TAG_TRUE:
      return "true";
    case TAG_FALSE:
      return "false";
    case TAG_JSON:
      return b.json(r, slot);
    default:
      return null;
  }
}

function sameSlot(b: JsonBatch, r: number, slot: number, seen: number[]): boolean {
  const kind = b.kind(r, slot);
  if (kind !== seen[0]) return false;
  if (kind === TAG_STRING) return b.stringId(r, slot) === seen[1];
  if (kind === TAG_NUMBER) return Object.is(b.num(r, slot), seen[2]);
  return kind !== TAG_JSON;
}

function remember(b: JsonBatch, r: number, slot: number, seen: number[]): void {
  const kind = b.kind(r, slot);
  seen[0] = kind;
  seen[1] = kind === TAG_STRING ? b.stringId(r, slot) : 0;
  seen[2] = kind === TAG_NUMBER ? b.num(r, slot) : 0;
}

/** The fields EmbeddedProfiles reads, as JSON.parse would have given them. */
function profileEvent(b: JsonBatch, r: number): ProfileEventFields {
  return {
    name: b.value(r, E_NAME),
    pid: b.value(r, E_PID),
    id: b.value(r, E_ID),
    args: b.value(r, E_ARGS),
  };
}

/**
 * args_json bytes: canonical JSON text (as JSON.stringify writes it) cut at maxBytes on a
 * character boundary, which the `args_truncated` flag then says. The scanner already cut ordinary
 * texts; whole (special) and slow
 * texts are cut here.
 */
class ArgsTruncator {
  truncated = false;
  private readonly scratch: Uint8Array;
  constructor(private readonly maxBytes: number) {
    this.scratch = new Uint8Array(Math.max(0, Math.floor(maxBytes)));
  }

  /** Adds the slot's args text to `store` (cut, and `truncated` set, past maxBytes); its index. */
  store(b: JsonBatch, r: number, slot: number, store: TextStore): number {
    const tag = b.tag(r, slot);
    this.truncated = (tag & TAG_TRUNCATED) !== 0;
    if ((tag & TAG_SLOW) === 0) {
      // Straight from the scanner's memory: no view of the text.
      const text = b.textMemory;
      const at = b.textOffset(r, slot);
      let length = b.textLength(r, slot);
      if (!this.truncated && length > this.maxBytes) {
        this.truncated = true;
        length = this.scratch.length;
        while (length > 0 && (text[at + length]! & 0xc0) === 0x80) length--;
      }
      return store.addRange(text, at, length);
    }
    const json = b.json(r, slot);
    const all = encoder.encode(json);
    if (all.length <= this.maxBytes) return store.add(all);
    this.truncated = true;
    const { written } = encoder.encodeInto(json, this.scratch);
    return store.addRange(this.scratch, 0, written);
  }
}
