/**
 * Turns the events read from an export into `trace_events` column batches: track by track,
 * each in time order, with its depth (the events still open on the track when it starts),
 * and its tracks into `tracks` rows.
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
  const n = ROWS_PER_BATCH;
  // A track's pid, tid and names are `tracks` rows (trackRows), not repeated on its events.
  const utf8 = ["track_id", "name", "category", "phase", "args_json", "flags"] as const;
  const text = Object.fromEntries(utf8.map((c) => [c, new Utf8Builder(n)])) as Record<
    (typeof utf8)[number],
    Utf8Builder
  >;
  const eventIndex = new Int64Builder(n);
  const ts = new Int64Builder(n);
  const dur = new Int64Builder(n);
  const threadDur = new Int64Builder(n);
  const depth = new Int32Builder(n);
  const strings = new Encoded();
  const set = (column: (typeof utf8)[number], row: number, value: string | null) =>
    value === null ? text[column].setNull(row) : text[column].set(row, strings.bytes(value));
  const build = (length: number): ColumnBatch => {
    const columns: ColumnBatch["columns"] = {
      event_index: eventIndex.build(length),
      ts_ns: ts.build(length),
      dur_ns: dur.build(length),
      thread_dur_ns: threadDur.build(length),
      depth: depth.build(length),
    };
    for (const c of utf8) columns[c] = text[c].build(length);
    for (const b of [eventIndex, ts, dur, threadDur, depth, ...Object.values(text)]) b.reset();
    return { table: "trace_events", length, columns };
  };

  let open: number[] = [];
  let current = -1;
  let row = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const t = track[i]!;
    if (t !== current) {
      current = t;
      open = [];
    }
    const s = start[i]!;
    const e = events.endOf(i);
    while (open.length > 0 && open.at(-1)! <= s) open.pop();
    eventIndex.set(row, k);
    set("track_id", row, events.tracks.values[t]!);
    const name = events.names.values[events.name.array[i]!]!;
    set("name", row, name.length > MAX_NAME_CHARS ? name.slice(0, MAX_NAME_CHARS) : name);
    set("category", row, events.categories.values[events.category.array[i]!]!);
    set("phase", row, e === null ? "i" : "X");
    ts.set(row, s);
    if (e === null) dur.setNull(row);
    else dur.set(row, e - s);
    threadDur.setNull(row);
    depth.set(row, open.length);
    const args = events.argsBytes(i);
    if (args === null) text.args_json.setNull(row);
    else text.args_json.set(row, args.length > maxArgsBytes ? cutChars(args, maxArgsBytes) : args);
    text.flags.setNull(row);
    if (e !== null && e > s) open.push(e);
    row += 1;
    if (row === n) {
      yield build(row);
      row = 0;
    }
  }
  if (row > 0 || events.length === 0) yield build(row);
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

/** Args text over `max` UTF-16 units, cut to its first `max` (as the args' text was cut before it was kept as bytes). */
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
