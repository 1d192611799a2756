/**
 * Reads an Nsight Systems export's events in output order (track by track, each in time
 * order) straight from SQLite, so nothing grows with the export: each event table is read
 * through one query that computes the event's track (its id, or with few tracks the id's
 * rank) and orders its rows as event-batches.ts orders held events (track id, start, the
 * longer first, then the order the rows were read in), SQLite's sorter spilling to its
 * temporary files beyond its cache; the tables' cursors are merged here in that order (a
 * tie between tables goes to the earlier table, as it was read first), and each row
 * becomes its event and its `trace_events` row at once. Measured (1M kernels + 1M runtime
 * calls): SQLite's sort costs ~2 s of CPU more than holding and sorting in memory did, and
 * its cache size (2 to 128 MiB) or helper threads do not change that.
 *
 * SQLite's order is the held order when it compares what the reader's JavaScript compares
 * and reads each table in the same order:
 *  - times are compared as the doubles JavaScript holds (`CAST(… AS REAL)`: an integer past
 *    2^53 rounds as it does when read), the end of an event without one (or of an NVTX mark)
 *    being its start;
 *  - the track id SQL computes must be, for every distinct set of track columns of the rows
 *    that may become events, the reader's own id for those values, and one id must not name
 *    two different tracks (so its names do not depend on which row came first): this is
 *    checked before any row is read, over SELECT DISTINCT of those columns (a pass over each
 *    table that keeps one entry per track);
 *  - the table is scanned in rowid order (no index serves the reader's query, no column
 *    hides the rowid).
 * Otherwise (`sortedReadPlan` gives the reason: a track column SQL writes otherwise, such
 * as a large REAL or a negative id; an index) the events are held and ordered in memory
 * (read-events.ts), with the same result. The tracks are those the plan found; a row that
 * becomes an event on a track it did not find stops the import rather than misnames it.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { TrackEventRows } from "./event-batches.ts";
import { type NsysRow, type NsysRowReader, type NsysTrack, trackColumns } from "./nsys-rows.ts";
import { EVENT_TABLES, type EventTable, NVTX_MARK, NVTX_RANGES } from "./nsys-tables.ts";

const encoder = new TextEncoder();

interface SortedTable {
  spec: EventTable;
  /** Its place in EVENT_TABLES: the held order reads the tables in that order. */
  order: number;
  sql: string;
}

export type SortedReadPlan =
  | {
      sortable: true;
      tables: SortedTable[];
      /** Each track id the rows that may become events name, and that track. */
      tracks: Map<string, NsysTrack>;
      /** The ids in order, when the rows carry an id's rank (its index here) for their track. */
      ids: string[] | null;
    }
  | { sortable: false; reason: string };

/** A column as the reader's `num(v) ?? 0` reads it, for integers (others are checked away). */
const numberOr0 = (column: string) =>
  `(CASE WHEN typeof("${column}") IN ('integer', 'real') THEN "${column}" ELSE 0 END)`;

/**
 * The track id SQL computes: the reader's (NsysRowReader.trackId) for integer columns; where
 * it is not (a REAL's digits, negative ids), sortedReadPlan finds out and does not sort.
 */
function trackIdSql(spec: EventTable): string {
  // `||` binds tighter than `/` and `%` in SQLite: every arithmetic term is parenthesised.
  if (spec.track === "thread") {
    const g = numberOr0("globalTid");
    return `((${g} / 16777216) % 16777216) || ':' || (${g} % 16777216)`;
  }
  return (
    `'gpu' || ${numberOr0("deviceId")} || ':pid' || ((${numberOr0("globalPid")} / 16777216) % ` +
    `16777216) || '.ctx' || ${numberOr0("contextId")} || '.stream' || ${numberOr0("streamId")}`
  );
}

/** A time as the double the reader holds. */
const asDouble = (column: string) => `CAST("${column}" AS REAL)`;

/**
 * The end the order compares: the end when it is a number, else (no end, an NVTX mark) the
 * start.
 */
function endOrStartSql(spec: EventTable): string {
  const mark =
    spec.category === "nvtx" ? `WHEN "eventType" = ${NVTX_MARK} THEN ${asDouble("start")} ` : "";
  return (
    `CASE ${mark}WHEN typeof("end") IN ('integer', 'real') THEN ${asDouble("end")} ` +
    `ELSE ${asDouble("start")} END`
  );
}

/** Rows that may become events (the reader skips the others before it asks for their track). */
function mayBeEventSql(spec: EventTable): string {
  return spec.category === "nvtx"
    ? `"eventType" IN (${[NVTX_MARK, ...NVTX_RANGES].join(", ")})`
    : "1";
}

/**
 * Track ids up to which SQL sorts by each id's rank (a CASE over the ids, evaluated per row)
 * instead of the id's text: an integer per row is less to sort and to hand to JavaScript.
 */
export const MAX_RANKED_TRACKS = 64;

/** SQL text for a string literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Whether SQLite can order the export's events exactly as they would be ordered held, and the
 * queries that read them so. Asks for each event table's columns (and so counts its category)
 * in the reader's order.
 */
export function sortedReadPlan(reader: NsysRowReader): SortedReadPlan {
  const found: { spec: EventTable; order: number; select: string[]; rows: string }[] = [];
  const identities = new Map<string, { json: string; track: NsysTrack }>();
  let reason: string | null = null;
  for (const [order, spec] of EVENT_TABLES.entries()) {
    const select = reader.selectList(spec);
    if (select === null || reason !== null) continue;
    const rows =
      `SELECT rowid AS "_rid", ${select.join(", ")} FROM ${spec.table} ORDER BY rowid ` +
      `LIMIT ${reader.rowLimit}`;
    reason =
      scanOrderProblem(reader, spec, select) ?? trackIdProblem(reader, spec, select, identities);
    found.push({ spec, order, select, rows });
  }
  if (reason !== null) return { sortable: false, reason };
  const ids = [...identities.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ranked = ids.length <= MAX_RANKED_TRACKS;
  const tables = found.map(({ spec, order, select, rows }) => {
    const id = trackIdSql(spec);
    const key = ranked
      ? `CASE ${id} ${ids.map((t, rank) => `WHEN ${literal(t)} THEN ${rank}`).join(" ")} END`
      : id;
    // The track columns only named the track: the rows need the rest.
    const named = new Set(trackColumns(spec).map((c) => `"${c}"`));
    const columns = select
      .map((c) => /"[^"]+"$/.exec(c)![0])
      .filter((c) => !named.has(c))
      .join(", ");
    return {
      spec,
      order,
      sql:
        `SELECT ${key} AS "_track", ${asDouble("start")} AS "_start", ${endOrStartSql(spec)} ` +
        `AS "_eos", "_rid", ${columns} FROM (${rows}) ORDER BY 1, 2, 3 DESC, "_rid"`,
    };
  });
  return {
    sortable: true,
    tables,
    tracks: new Map(ids.map((id) => [id, identities.get(id)!.track])),
    ids: ranked ? ids : null,
  };
}

/** Why the held path would not read the table in rowid order, or null. */
function scanOrderProblem(
  reader: NsysRowReader,
  spec: EventTable,
  select: string[],
): string | null {
  const columns = [...reader.columns(spec.table)].map((c) => c.toLowerCase());
  if (columns.some((c) => c === "rowid" || c === "_rowid_" || c === "oid"))
    return `${spec.table} has a column named like its rowid`;
  // The held path reads `SELECT … FROM table LIMIT n`: a plain scan is rowid order; a scan of a
  // covering index (or a WITHOUT ROWID table's key) is not.
  try {
    reader.db.query(`SELECT rowid FROM ${spec.table} LIMIT 0`).all();
  } catch {
    return `${spec.table} has no rowid`;
  }
  const plan = reader.db
    .query(
      `EXPLAIN QUERY PLAN SELECT ${select.join(", ")} FROM ${spec.table} LIMIT ${reader.rowLimit}`,
    )
    .all() as { detail: string }[];
  return plan.some((p) => /\bINDEX\b/i.test(p.detail))
    ? `${spec.table} is read through an index`
    : null;
}

/**
 * Why SQL's track ids would not order the table's rows as the reader's ids do, or null: over
 * each distinct set of track columns of the rows that may become events, SQL's id must be the
 * reader's, and an id must name the same track (pid, tid, names) whichever set gave it.
 */
function trackIdProblem(
  reader: NsysRowReader,
  spec: EventTable,
  select: string[],
  identities: Map<string, { json: string; track: NsysTrack }>,
): string | null {
  const rows =
    `SELECT ${select.join(", ")} FROM ${spec.table} ` + `ORDER BY rowid LIMIT ${reader.rowLimit}`;
  const columns = trackColumns(spec).map((c) => `"${c}"`);
  const keys = reader.db
    .query(
      `SELECT DISTINCT ${trackIdSql(spec)} AS "_track", ${columns.join(", ")} FROM (${rows}) ` +
        `WHERE ${mayBeEventSql(spec)}`,
    )
    .iterate() as Iterable<NsysRow>;
  for (const key of keys) {
    const id = reader.trackId(spec, key);
    if (id !== key._track)
      return (
        `${spec.table} has track columns whose id SQL writes as ${JSON.stringify(key._track)}, ` +
        `not ${JSON.stringify(id)}`
      );
    const track = reader.trackIdentity(spec, key);
    const json = JSON.stringify(track);
    const seen = identities.get(id);
    if (seen === undefined) identities.set(id, { json, track });
    else if (seen.json !== json) return `track ${id} is named by rows that name it differently`;
  }
  return null;
}

/** One table's rows in its order, and the row it is at. */
class TableCursor {
  row: NsysRow | null = null;
  /** The row's track id, or its rank (SortedReadPlan.ids). */
  track: string | number = "";
  start = 0;
  endOrStart = 0;
  rid = 0;
  private readonly rows: Iterator<NsysRow>;

  constructor(
    readonly table: SortedTable,
    reader: NsysRowReader,
  ) {
    this.rows = (reader.db.query(table.sql).iterate() as Iterable<NsysRow>)[Symbol.iterator]();
  }

  next(): boolean {
    const next = this.rows.next();
    if (next.done) {
      this.row = null;
      return false;
    }
    const row = next.value;
    this.row = row;
    // No rank (NULL, sorted first by SQL): a row that cannot become an event.
    this.track = (row._track as string | number | null) ?? -1;
    this.start = row._start as number;
    this.endOrStart = row._eos as number;
    this.rid = row._rid as number;
    return true;
  }

  /** Whether this cursor's row comes before `other`'s in the held order. */
  before(other: TableCursor): boolean {
    if (this.track !== other.track) return this.track < other.track;
    if (this.start !== other.start) return this.start < other.start;
    if (this.endOrStart !== other.endOrStart) return this.endOrStart > other.endOrStart;
    if (this.table.order !== other.table.order) return this.table.order < other.table.order;
    return this.rid < other.rid;
  }
}

/** The export's `trace_events` rows, in batches, read in order from SQLite. */
export function* sortedEventBatches(
  reader: NsysRowReader,
  plan: Extract<SortedReadPlan, { sortable: true }>,
  maxArgsBytes: number,
): Generator<ColumnBatch> {
  const out = new TrackEventRows(maxArgsBytes);
  const live: TableCursor[] = [];
  for (const table of plan.tables) {
    const cursor = new TableCursor(table, reader);
    if (cursor.next()) live.push(cursor);
  }
  while (live.length > 0) {
    let at = 0;
    for (let k = 1; k < live.length; k++) if (live[k]!.before(live[at]!)) at = k;
    const cursor = live[at]!;
    // A row without a rank (-1) is one the reader skips before it asks for its track.
    const track = typeof cursor.track === "number" ? (plan.ids![cursor.track] ?? "") : cursor.track;
    const event = reader.event(cursor.table.spec, cursor.row!, {
      id: track,
      track: plan.tracks.get(track),
    });
    if (event !== null) {
      const batch = out.add(
        event.track,
        event.category,
        event.name,
        event.start,
        event.end,
        event.args === null ? null : encoder.encode(event.args),
      );
      if (batch !== null) yield batch;
    }
    if (!cursor.next()) live.splice(at, 1);
  }
  const last = out.finish();
  if (last !== null) yield last;
}
