/**
 * trace_events rows name their track by track_id; from trace_events v1.2 on, the track's
 * pid, tid and names are stored once per track, in `tracks`, not on every event (they
 * were ~a third of a Chrome trace's encoded bytes). This joins them back so readers see
 * the columns they always saw. Files of earlier versions still carry the columns and are
 * read as they are.
 */
import { RecordBatch, Schema, Struct, Table, makeData, type Data } from "apache-arrow/Arrow.dom";
import { EVIDENCE_SCHEMAS, TRACK_COLUMNS } from "../domain/evidence-schema.ts";
import { arrowField, columnData } from "./parquet-columns.ts";

/** Per track_id, its row of `tracks` in TRACK_COLUMNS order. */
export type TrackRows = ReadonlyMap<string, readonly (string | null)[]>;

const TRACK_SPECS = TRACK_COLUMNS.map(
  (name) => EVIDENCE_SCHEMAS.tracks.columns.find((c) => c.name === name)!,
);

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
  const fields = wanted.map(
    (name) =>
      events.schema.fields[byName.get(name) ?? -1] ??
      arrowField(TRACK_SPECS[TRACK_COLUMNS.indexOf(name as (typeof TRACK_COLUMNS)[number])]!),
  );
  const schema = new Schema(fields, events.schema.metadata);
  if (events.numRows === 0) return new Table(schema);
  const batches = events.batches.map((batch) => {
    const ids = batch.getChildAt(trackIndex)!;
    const rows = Array.from(
      { length: batch.numRows },
      (_, i) => tracks.get(String(ids.get(i))) ?? null,
    );
    const children: Data[] = wanted.map((name) => {
      const index = byName.get(name);
      if (index !== undefined) return batch.data.children[index]!;
      const k = TRACK_COLUMNS.indexOf(name as (typeof TRACK_COLUMNS)[number]);
      return columnData(
        TRACK_SPECS[k]!,
        rows.map((row) => (row ? row[k]! : null)),
        0,
        rows.length,
      );
    });
    return new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }),
    );
  });
  return new Table(schema, batches);
}
