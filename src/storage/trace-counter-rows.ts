/**
 * `trace_counters` rows as the `trace_events` rows they stand for: phase "C", args
 * `{"value":N}`, depth 0, no category, duration, flags or thread time, and the track's id looked up
 * by the reading's track_index in the generation's `tracks`. Readers of trace_events see a
 * generation's readings as further parts of it, whatever table stored them.
 */
import { RecordBatch, Schema, Struct, Table, makeData, type Data } from "apache-arrow/Arrow.dom";
import { counterArgsJson } from "../domain/counter-reading.ts";
import { type ColumnSpec, EVIDENCE_SCHEMAS } from "../domain/evidence-schema.ts";
import { arrowField, columnData, constantData } from "./parquet-columns.ts";

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
  const fields = wanted.map((name) =>
    passedThrough(name, byName)
      ? counters.schema.fields[byName.get(name)!]!
      : arrowField(EVENT_SPECS.get(name)!),
  );
  const schema = new Schema(fields, counters.schema.metadata);
  if (counters.numRows === 0) return new Table(schema);
  const batches = counters.batches.map((batch) => {
    const n = batch.numRows;
    const children: Data[] = wanted.map((name) => {
      if (passedThrough(name, byName)) return batch.data.children[byName.get(name)!]!;
      const spec = EVENT_SPECS.get(name)!;
      return eventColumn(spec, batch, byName, n, trackIdOf);
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
    case "track_id": {
      const tracks = child("track_index");
      return columnData(
        spec,
        Array.from({ length: n }, (_, i) => trackIdOf(tracks.get(i) as number)),
        0,
        n,
      );
    }
    case "args_json": {
      const values = child("value");
      return columnData(
        spec,
        Array.from({ length: n }, (_, i) => counterArgsJson(values.get(i) as number)),
        0,
        n,
      );
    }
    default:
      // category, dur_ns, flags, thread_dur_ns: a reading has none.
      return columnData(spec, new Array(n).fill(null), 0, n);
  }
}
