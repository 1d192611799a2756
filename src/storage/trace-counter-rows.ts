/**
 * `trace_counters` rows as the `trace_events` rows they stand for: phase "C", args
 * `{"value":N}`, depth 0, no category, duration, flags or thread time, and the track's id looked up
 * by the reading's track_index in the generation's `tracks`. Readers of trace_events see a
 * generation's readings as further parts of it, whatever table stored them.
 */
import {
  type Data,
  Dictionary,
  Field,
  Int32,
  type Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from "apache-arrow/Arrow.dom";
import { type ColumnSpec, EVIDENCE_SCHEMAS } from "../domain/evidence-schema.ts";
import { arrowField, arrowType, constantData } from "./parquet-columns.ts";
import { maxDictionaryId } from "./track-columns.ts";

const EVENT_SPECS = new Map(EVIDENCE_SCHEMAS.trace_events.columns.map((c) => [c.name, c]));

/** Columns a reading is read with to make its event columns (besides provenance). */
export const COUNTER_COLUMNS = ["event_index", "track_index", "name", "ts_ns", "value"];

/** Event columns a reading holds as they are, under the same name and type. */
const SAME = new Set(["event_index", "name", "ts_ns"]);

/**
 * `columns` of the events `counters` (decoded with COUNTER_COLUMNS and any provenance asked for)
 * stand for, in request order; columns neither table has stay absent. `trackIdOf`: a track_index's
 * track_id (null: not in the generation's tracks).
 */
export function countersAsEvents(
  counters: Table,
  columns: readonly string[],
  trackIdOf: (index: number) => string | null,
): Table {
  const byName = new Map(counters.schema.fields.map((f, i) => [f.name, i]));
  // pid, tid and the names are not among them: they are joined from `tracks` by track_id
  // afterwards, as for stored events (track-columns.ts).
  const wanted = columns.filter((name) => EVENT_SPECS.has(name) || passedThrough(name, byName));
  // Its own dictionary id, beside those of the decoded columns passed through (name).
  const trackIds = new Dictionary(new Utf8(), new Int32(), 1 + maxDictionaryId(counters.schema));
  const fields = wanted.map((name) =>
    passedThrough(name, byName)
      ? counters.schema.fields[byName.get(name)!]!
      : name === "track_id"
        ? new Field(name, trackIds, true)
        : arrowField(EVENT_SPECS.get(name)!),
  );
  const schema = new Schema(fields, counters.schema.metadata);
  if (counters.numRows === 0) return new Table(schema);
  const batches = counters.batches.map((batch) => {
    const n = batch.numRows;
    const children: Data[] = wanted.map((name) => {
      if (passedThrough(name, byName)) return batch.data.children[byName.get(name)!]!;
      const spec = EVENT_SPECS.get(name)!;
      return eventColumn(spec, batch, byName, n, trackIdOf, trackIds);
    });
    return new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
    );
  });
  return new Table(schema, batches);
}

/** A column the readings hold as the events did (event_index, name, ts_ns, provenance). */
function passedThrough(name: string, byName: ReadonlyMap<string, number>): boolean {
  if (!byName.has(name)) return false;
  return SAME.has(name) || (!EVENT_SPECS.has(name) && !COUNTER_COLUMNS.includes(name));
}

function eventColumn(
  spec: ColumnSpec,
  batch: RecordBatch,
  byName: ReadonlyMap<string, number>,
  n: number,
  trackIdOf: (index: number) => string | null,
  trackIds: Dictionary<Utf8, Int32>,
): Data {
  const child = (name: string) => {
    const index = byName.get(name);
    if (index === undefined) throw new TypeError(`trace_counters part lacks ${name}`);
    return batch.getChildAt(index)!;
  };
  switch (spec.name) {
    case "phase":
      return constantData(spec, "C", n);
    case "depth":
      return constantData(spec, 0, n);
    case "track_id":
      return trackIdColumn(child("track_index").toArray() as Int32Array, n, trackIdOf, trackIds);
    case "args_json":
      return argsColumn(child("value").toArray() as Float64Array, n);
    default:
      // category, dur_ns, flags, thread_dur_ns: a reading has none.
      return nullColumn(spec, n);
  }
}

// The columns are built as bytes, not from a JS string per reading: a cold trace window over a
// 100 MB Chromium trace (2.8M readings) took 6.7-8.6 s and 1.35-1.41 GB that way, against
// 4.3-6.1 s and ~0.97 GB when its readings were stored as events. Built so, and with the track
// columns joined as dictionaries (track-columns.ts), it takes 3.9-4.0 s and ~870 MB.

/**
 * Each reading's track_id, as an index into the batch's tracks (null: not in `tracks`): a
 * dictionary, as stored events' track_id is read (it is written dictionary-encoded), so a reader's
 * `get` returns a string made once per track rather than one decoded for every row.
 */
function trackIdColumn(
  tracks: Int32Array,
  n: number,
  trackIdOf: (index: number) => string | null,
  type: Dictionary<Utf8, Int32>,
): Data {
  const slotOf = new Map<number, number>();
  const ids: string[] = [];
  const indices = new Int32Array(n);
  let nullBitmap: Uint8Array | null = null;
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    const index = tracks[i]!;
    let slot = slotOf.get(index);
    if (slot === undefined) {
      const id = trackIdOf(index);
      slot = id === null ? -1 : ids.push(id) - 1;
      slotOf.set(index, slot);
    }
    if (slot < 0) {
      nullBitmap ??= new Uint8Array((n + 7) >> 3).fill(0xff);
      nullBitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    } else indices[i] = slot;
  }
  return makeData({
    type,
    length: n,
    nullCount,
    nullBitmap,
    data: indices,
    dictionary: vectorFromArray(ids, new Utf8()),
  });
}

const VALUE_OPEN = new TextEncoder().encode('{"value":');
/**
 * The longest args text of a reading: 9 + 24 + 1 bytes (the importer's READING_ARGS_BYTES, in
 * adapters/perfetto/perfetto-import.ts).
 */
const MAX_ARGS_BYTES = 34;

/**
 * Each reading's args, `{"value":N}` as JSON.stringify writes it and the importer wrote it for
 * readings stored as events (adapters/perfetto/event-args.ts).
 */
function argsColumn(values: Float64Array, n: number): Data {
  const offsets = new Int32Array(n + 1);
  let data: Uint8Array<ArrayBuffer> = new Uint8Array(Math.max(64, n * 20));
  let used = 0;
  for (let i = 0; i < n; i++) {
    if (used + MAX_ARGS_BYTES > data.length) data = grown(data, used + MAX_ARGS_BYTES);
    for (let k = 0; k < VALUE_OPEN.length; k++) data[used++] = VALUE_OPEN[k]!;
    const value = values[i]!;
    if (Number.isSafeInteger(value)) used = writeInteger(data, used, value);
    else {
      const text = Number.isFinite(value) ? String(value) : "null";
      for (let k = 0; k < text.length; k++) data[used++] = text.charCodeAt(k);
    }
    data[used++] = 0x7d; // }
    offsets[i + 1] = used;
  }
  return makeData({
    type: new Utf8(),
    length: n,
    nullCount: 0,
    valueOffsets: offsets,
    data: data.subarray(0, used),
  });
}

/** A safe integer's decimal digits at `at` (-0 as 0, as JSON writes it); returns the end. */
function writeInteger(data: Uint8Array, at: number, value: number): number {
  let rest = value;
  let end = at;
  if (rest < 0) {
    data[end++] = 0x2d; // -
    rest = -rest;
  }
  let digits = 1;
  for (let bound = 10; rest >= bound && digits < 16; bound *= 10) digits++;
  end += digits;
  for (let k = end - 1; k >= end - digits; k--) {
    data[k] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return end;
}

function grown(data: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(Math.max(need, data.length * 2));
  next.set(data);
  return next;
}

/** A column with no value in any row. */
function nullColumn(spec: ColumnSpec, n: number): Data {
  const type = arrowType(spec.type);
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  if (spec.type === "utf8")
    return makeData({
      type: type as Utf8,
      length: n,
      nullCount: n,
      nullBitmap,
      valueOffsets: new Int32Array(n + 1),
      data: new Uint8Array(0),
    });
  if (spec.type === "int64")
    return makeData({
      type: type as Int64,
      length: n,
      nullCount: n,
      nullBitmap,
      data: new BigInt64Array(n),
    });
  throw new TypeError(`No null column of type ${spec.type}`);
}
