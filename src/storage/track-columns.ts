/**
 * trace_events rows name their track by track_id; from trace_events v1.2 on, the track's
 * pid, tid and names are stored once per track, in `tracks`, not on every event (they
 * were ~a third of a Chrome trace's encoded bytes). This joins them back so readers see
 * the columns they always saw. Files of earlier versions still carry the columns and are
 * read as they are.
 */
import {
  type Data,
  DataType,
  Dictionary,
  Field,
  Int32,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  type Vector,
  vectorFromArray,
} from "apache-arrow/Arrow.dom";
import { TRACK_COLUMNS } from "../domain/evidence-schema.ts";

/** Per track_id, its row of `tracks` in TRACK_COLUMNS order. */
export type TrackRows = ReadonlyMap<string, readonly (string | null)[]>;

/** Whether reading `columns` of trace_events needs the generation's tracks. */
export function asksForTrackColumns(columns: readonly string[]): boolean {
  return columns.some((name) => (TRACK_COLUMNS as readonly string[]).includes(name));
}

/** The `tracks` rows of a decoded tracks part, by track_id. */
export function trackRowsOf(
  tracks: Table,
  into = new Map<string, (string | null)[]>(),
): Map<string, (string | null)[]> {
  const ids = tracks.getChild("track_id");
  const cols = TRACK_COLUMNS.map((name) => tracks.getChild(name));
  for (let i = 0; i < tracks.numRows; i++)
    into.set(
      String(ids!.get(i)),
      cols.map((c) => (c?.get(i) as string | null | undefined) ?? null),
    );
  return into;
}

/** The track_id of each track_index of a decoded tracks part (rows without one are skipped). */
export function trackIndexesOf(tracks: Table, into: Map<number, string>): Map<number, string> {
  const ids = tracks.getChild("track_id");
  const indexes = tracks.getChild("track_index");
  if (!indexes) return into;
  for (let i = 0; i < tracks.numRows; i++) {
    const index = indexes.get(i) as number | null;
    if (index !== null) into.set(index, String(ids!.get(i)));
  }
  return into;
}

/**
 * `columns` of decoded trace_events (which must include track_id when a track column is
 * missing), in request order, with the track columns the part lacks filled from `tracks`.
 * Columns neither has stay absent, as for any evidence read.
 */
export function withTrackColumns(
  events: Table,
  columns: readonly string[],
  tracks: TrackRows,
): Table {
  const byName = new Map(events.schema.fields.map((f, i) => [f.name, i]));
  const wanted = columns.filter(
    (name) => byName.has(name) || (TRACK_COLUMNS as readonly string[]).includes(name),
  );
  const missing = wanted.filter((name) => !byName.has(name));
  if (missing.length === 0) return events.select(wanted);
  const trackIndex = byName.get("track_id");
  if (trackIndex === undefined)
    throw new TypeError("Joining track columns needs the events' track_id");
  // Track columns are dictionaries of the batch's few tracks: one index per row. A string made and
  // encoded per row and column, and each row's track_id decoded to look its track up, were over
  // 1 s of a ~6 s cold trace window over a 100 MB Chromium trace (4.25M events; CPU profile).
  // Their dictionary ids follow those of the events' own dictionaries.
  let nextId = 1 + maxDictionaryId(events.schema);
  const trackTypes = new Map(
    missing.map((name) => [name, new Dictionary(new Utf8(), new Int32(), nextId++)]),
  );
  const fields = wanted.map((name) => {
    const own = events.schema.fields[byName.get(name) ?? -1];
    return own ?? new Field(name, trackTypes.get(name)!, true);
  });
  const schema = new Schema(fields, events.schema.metadata);
  if (events.numRows === 0) return new Table(schema);
  const batches = events.batches.map((batch) => {
    const rows = trackRowsOfBatch(batch.getChildAt(trackIndex)!, batch.numRows, tracks);
    const children: Data[] = wanted.map((name) => {
      const index = byName.get(name);
      if (index !== undefined) return batch.data.children[index]!;
      const k = TRACK_COLUMNS.indexOf(name as (typeof TRACK_COLUMNS)[number]);
      return trackColumn(rows, k, trackTypes.get(name)!);
    });
    return new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }),
    );
  });
  return new Table(schema, batches);
}

/** Largest dictionary id among a schema's fields (-1: none). */
export function maxDictionaryId(schema: Schema): number {
  let max = -1;
  for (const field of schema.fields)
    if (DataType.isDictionary(field.type)) max = Math.max(max, field.type.id);
  return max;
}

/** A batch's events as indices into its distinct track rows (null: a track not in `tracks`). */
interface BatchTracks {
  rows: (readonly (string | null)[] | null)[];
  slots: Int32Array;
}

function trackRowsOfBatch(ids: Vector, n: number, tracks: TrackRows): BatchTracks {
  const rows: (readonly (string | null)[] | null)[] = [];
  const slots = new Int32Array(n);
  const slotOfId = new Map<string, number>();
  const slotOf = (id: unknown): number => {
    const key = String(id);
    let slot = slotOfId.get(key);
    if (slot === undefined) {
      slot = rows.push(tracks.get(key) ?? null) - 1;
      slotOfId.set(key, slot);
    }
    return slot;
  };
  const data = ids.data[0];
  if (ids.data.length === 1 && data && DataType.isDictionary(data.type) && data.dictionary) {
    // Stored track_id is dictionary-encoded: each key's row is looked up once.
    const keys = data.values as ArrayLike<number>;
    const dictionary = data.dictionary;
    const slotOfKey = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      let slot = slotOfKey.get(key);
      if (slot === undefined) {
        slot = slotOf(dictionary.get(key));
        slotOfKey.set(key, slot);
      }
      slots[i] = slot;
    }
  } else {
    for (let i = 0; i < n; i++) slots[i] = slotOf(ids.get(i));
  }
  return { rows, slots };
}

/** Column `k` of TRACK_COLUMNS for a batch's events, as a dictionary of its tracks' values. */
function trackColumn(batch: BatchTracks, k: number, type: Dictionary<Utf8, Int32>): Data {
  const values: string[] = [];
  const indexOfValue = new Map<string, number>();
  const indexOfSlot = batch.rows.map((row) => {
    const value = row?.[k] ?? null;
    if (value === null) return -1;
    let index = indexOfValue.get(value);
    if (index === undefined) {
      index = values.push(value) - 1;
      indexOfValue.set(value, index);
    }
    return index;
  });
  const n = batch.slots.length;
  const indices = new Int32Array(n);
  let nullBitmap: Uint8Array | null = null;
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    const index = indexOfSlot[batch.slots[i]!]!;
    if (index >= 0) indices[i] = index;
    else {
      nullBitmap ??= new Uint8Array((n + 7) >> 3).fill(0xff);
      nullBitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return makeData({
    type,
    length: n,
    nullCount,
    nullBitmap,
    data: indices,
    dictionary: vectorFromArray(values, new Utf8()),
  });
}
