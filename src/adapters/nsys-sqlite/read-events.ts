/**
 * Reads every event of an Nsight Systems export table by table, in the order SQLite scans
 * each, and holds them (as columns, device-event-columns.ts) so that event-batches.ts can
 * order them per track. The events then cost ~40 bytes each plus their args' bytes: this
 * is the path for exports SQLite cannot order for us exactly (sorted-events.ts says
 * which), and the reference the sorted path is tested against.
 */
import type { Database } from "bun:sqlite";
import { NsysEvents } from "./device-event-columns.ts";
import { EVENT_TABLES } from "./nsys-tables.ts";
import type { NsysRow, NsysRowReader, NsysTrack } from "./nsys-rows.ts";

export type { NsysEvent } from "./device-event-columns.ts";
export type { NsysTrack } from "./nsys-rows.ts";

export interface NsysRead {
  meta: Record<string, string>;
  metaTable: string | null;
  events: NsysEvents;
  tracks: Map<string, NsysTrack>;
  counts: Record<string, number>;
  skipped: Record<string, number>;
  skippedWhy: Record<string, string>;
}

/** Every event of the export, held, in the order the tables are read. */
export function readHeldEvents(reader: NsysRowReader): NsysRead {
  const events = new NsysEvents();
  for (const spec of EVENT_TABLES) {
    const select = reader.selectList(spec);
    if (select === null) continue;
    for (const row of query(reader.db, select, spec.table, reader.rowLimit)) {
      const event = reader.event(spec, row);
      if (event !== null) events.push(event);
    }
  }
  return {
    meta: reader.meta,
    metaTable: reader.metaTable,
    events,
    tracks: reader.tracks,
    counts: reader.counts,
    skipped: reader.skipped,
    skippedWhy: reader.skippedWhy,
  };
}

function query(db: Database, select: string[], table: string, limit: number): Iterable<NsysRow> {
  return db
    .query(`SELECT ${select.join(", ")} FROM ${table} LIMIT ${limit}`)
    .iterate() as Iterable<NsysRow>;
}
