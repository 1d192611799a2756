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
  const order = new Uint32Array(events.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => {
    const x = events[a]!;
    const y = events[b]!;
    return x.track < y.track
      ? -1
      : x.track > y.track
        ? 1
        : x.start - y.start || (y.end ?? y.start) - (x.end ?? x.start) || a - b;
  });
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
  let track: string | null = null;
  let row = 0;
  for (let k = 0; k < order.length; k++) {
    const e = events[order[k]!]!;
    if (e.track !== track) {
      track = e.track;
      open = [];
    }
    while (open.length > 0 && open.at(-1)! <= e.start) open.pop();
    eventIndex.set(row, k);
    set("track_id", row, e.track);
    set("name", row, e.name.length > MAX_NAME_CHARS ? e.name.slice(0, MAX_NAME_CHARS) : e.name);
    set("category", row, e.category);
    set("phase", row, e.end === null ? "i" : "X");
    ts.set(row, e.start);
    if (e.end === null) dur.setNull(row);
    else dur.set(row, e.end - e.start);
    threadDur.setNull(row);
    depth.set(row, open.length);
    if (e.args === null) text.args_json.setNull(row);
    else
      text.args_json.set(
        row,
        encoder.encode(e.args.length > maxArgsBytes ? e.args.slice(0, maxArgsBytes) : e.args),
      );
    text.flags.setNull(row);
    if (e.end !== null && e.end > e.start) open.push(e.end);
    row += 1;
    if (row === n) {
      yield build(row);
      row = 0;
    }
  }
  if (row > 0 || events.length === 0) yield build(row);
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
