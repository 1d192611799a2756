/**
 * Turns the events read from an export into `trace_events` column batches: track by track,
 * each in time order, with its depth (the events still open on the track when it starts),
 * and its tracks into `tracks` rows. `TrackEventRows` builds the rows of events handed over
 * in that order (SQLite's, sorted-events.ts); `eventBatches` orders held events first.
 * Batches are built as column vectors, so a million kernels never become a million row
 * objects; strings that repeat (tracks, names) are encoded once.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../domain/evidence-schema.ts";
import { TableBuffer } from "../../domain/table-buffer.ts";
import { Int32Builder, Int64Builder, Utf8Builder } from "../common/column-builders.ts";
import type { NsysRead } from "./read-events.ts";

export const ROWS_PER_BATCH = 16384;
const MAX_NAME_CHARS = 4096;
// A track's pid, tid and names are `tracks` rows (trackRows), not repeated on its events.
const UTF8_COLUMNS = ["track_id", "name", "category", "phase", "args_json", "flags"] as const;
const encoder = new TextEncoder();

class Encoded {
  private readonly cache = new Map<string, Uint8Array>();
  bytes(text: string): Uint8Array {
    let bytes = this.cache.get(text);
    if (!bytes) {
      bytes = encoder.encode(text);
      // Names repeat (a kernel launched a million times); args do not, and are not kept.
      if (this.cache.size < 100_000) this.cache.set(text, bytes);
    }
    return bytes;
  }
}

export function* eventBatches(
  read: Pick<NsysRead, "events">,
  maxArgsBytes: number,
): Generator<ColumnBatch> {
  const events = read.events;
  // Tracks in id order, then time; a longer event before one that starts with it.
  const trackRank = rankOf(events.tracks.values);
  const track = events.track.array;
  const start = events.start.array;
  const end = events.end.array;
  const endOrStart = (i: number) => (Number.isNaN(end[i]!) ? start[i]! : end[i]!);
  const order = new Uint32Array(events.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort(
    (a, b) =>
      trackRank[track[a]!]! - trackRank[track[b]!]! ||
      start[a]! - start[b]! ||
      endOrStart(b) - endOrStart(a) ||
      a - b,
  );
  const rows = new TrackEventRows(maxArgsBytes);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const batch = rows.add(
      events.tracks.values[track[i]!]!,
      events.categories.values[events.category.array[i]!]!,
      events.names.values[events.name.array[i]!]!,
      start[i]!,
      events.endOf(i),
      events.argsBytes(i),
    );
    if (batch !== null) yield batch;
  }
  const last = rows.finish();
  if (last !== null) yield last;
}

/**
 * `trace_events` rows from events handed over in output order (by track, then time), in
 * batches of ROWS_PER_BATCH: each event's index is its place in that order, and its depth
 * the events still open on its track when it starts.
 */
export class TrackEventRows {
  private readonly text: Record<(typeof UTF8_COLUMNS)[number], Utf8Builder>;
  private readonly eventIndex = new Int64Builder(ROWS_PER_BATCH);
  private readonly ts = new Int64Builder(ROWS_PER_BATCH);
  private readonly dur = new Int64Builder(ROWS_PER_BATCH);
  private readonly threadDur = new Int64Builder(ROWS_PER_BATCH);
  private readonly depth = new Int32Builder(ROWS_PER_BATCH);
  private readonly strings = new Encoded();
  /** Ends of the events still open on the current track, innermost last. */
  private open: number[] = [];
  private current: string | null = null;
  private currentBytes: Uint8Array = new Uint8Array(0);
  private row = 0;
  /** Events added so far. */
  count = 0;

  constructor(private readonly maxArgsBytes: number) {
    this.text = Object.fromEntries(
      UTF8_COLUMNS.map((c) => [c, new Utf8Builder(ROWS_PER_BATCH)]),
    ) as Record<(typeof UTF8_COLUMNS)[number], Utf8Builder>;
  }

  /**
   * Adds the next event (end null: an instant); returns a batch when this one filled it.
   * `args`: the args' JSON as UTF-8 bytes, cut here to `maxArgsBytes` characters.
   */
  add(
    track: string,
    category: string,
    name: string,
    start: number,
    end: number | null,
    args: Uint8Array | null,
  ): ColumnBatch | null {
    const row = this.row;
    const text = this.text;
    if (track !== this.current) {
      this.current = track;
      this.currentBytes = this.strings.bytes(track);
      this.open = [];
    }
    const open = this.open;
    while (open.length > 0 && open.at(-1)! <= start) open.pop();
    this.eventIndex.set(row, this.count);
    text.track_id.set(row, this.currentBytes);
    text.name.set(
      row,
      this.strings.bytes(name.length > MAX_NAME_CHARS ? name.slice(0, MAX_NAME_CHARS) : name),
    );
    text.category.set(row, this.strings.bytes(category));
    text.phase.set(row, this.strings.bytes(end === null ? "i" : "X"));
    this.ts.set(row, start);
    if (end === null) this.dur.setNull(row);
    else this.dur.set(row, end - start);
    this.threadDur.setNull(row);
    this.depth.set(row, open.length);
    if (args === null) text.args_json.setNull(row);
    else
      text.args_json.set(
        row,
        args.length > this.maxArgsBytes ? cutChars(args, this.maxArgsBytes) : args,
      );
    text.flags.setNull(row);
    if (end !== null && end > start) open.push(end);
    this.count += 1;
    this.row += 1;
    return this.row === ROWS_PER_BATCH ? this.build() : null;
  }

  /** The last batch: the rows not yet returned, or an empty batch when no event was added. */
  finish(): ColumnBatch | null {
    return this.row > 0 || this.count === 0 ? this.build() : null;
  }

  private build(): ColumnBatch {
    const length = this.row;
    const columns: ColumnBatch["columns"] = {
      event_index: this.eventIndex.build(length),
      ts_ns: this.ts.build(length),
      dur_ns: this.dur.build(length),
      thread_dur_ns: this.threadDur.build(length),
      depth: this.depth.build(length),
    };
    for (const c of UTF8_COLUMNS) columns[c] = this.text[c].build(length);
    for (const b of [
      this.eventIndex,
      this.ts,
      this.dur,
      this.threadDur,
      this.depth,
      ...Object.values(this.text),
    ])
      b.reset();
    this.row = 0;
    return { table: "trace_events", length, columns };
  }
}

/** Each string's rank in code-unit order (as `<` compares them). */
function rankOf(values: readonly string[]): Int32Array {
  const sorted = values
    .map((v, i) => [v, i] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const rank = new Int32Array(values.length);
  sorted.forEach(([, i], r) => {
    rank[i] = r;
  });
  return rank;
}

const decoder = new TextDecoder();

/**
 * Args text over `max` UTF-16 units, cut to its first `max` (as the args' text was cut before it
 * was kept as bytes).
 */
function cutChars(bytes: Uint8Array, max: number): Uint8Array {
  const text = decoder.decode(bytes);
  return text.length > max ? encoder.encode(text.slice(0, max)) : bytes;
}

/** One `tracks` row per track that has events, in track id order. */
export function trackRows(read: Pick<NsysRead, "tracks">): TableBuffer {
  const out = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
  for (const id of [...read.tracks.keys()].sort()) {
    const t = read.tracks.get(id)!;
    out.append({
      track_id: id,
      pid: t.pid,
      tid: t.tid,
      process_name: t.processName,
      thread_name: t.threadName,
    });
  }
  return out;
}
