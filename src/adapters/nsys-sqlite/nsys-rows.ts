/**
 * What turns an Nsight Systems export's rows into events, whichever order they are read in:
 * the export's small tables read once (metadata, StringIds, GPU, process and thread
 * names), then each event table's row converted on its own (name, args, track, the rows
 * skipped and why), with fixed, bounded SELECTs through the untrusted-SQLite core.
 * read-events.ts reads the rows table by table and holds them; sorted-events.ts reads them
 * in output order from SQLite; both convert each row here, so their events are the same.
 */
import type { Database } from "bun:sqlite";
import { FlameoxError } from "../../domain/errors.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { type SchemaObject, tableColumns } from "../sqlite/untrusted-database.ts";
import type { NsysEvent } from "./device-event-columns.ts";
import { type EventTable, hostIds, MEMCPY_KINDS, NVTX_MARK, NVTX_RANGES } from "./nsys-tables.ts";

/**
 * Strings kept in the id table; an export's StringIds holds function and kernel names, thousands at
 * most.
 */
const MAX_STRINGS = 5_000_000;
const MAX_ARG_CHARS = 256;

export interface NsysTrack {
  pid: string;
  tid: string;
  processName: string | null;
  threadName: string | null;
}

/** One row of an event table as SQLite returns it (column name to value). */
export type NsysRow = Record<string, unknown>;

export const num = (v: unknown): number | null =>
  typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : null;

/** The columns that name a row's track: a GPU stream's, or a host thread's. */
export function trackColumns(spec: EventTable): string[] {
  return spec.track === "stream"
    ? ["deviceId", "contextId", "streamId", "globalPid"]
    : ["globalTid"];
}

/** A track found beforehand; there is one for every row that becomes an event. */
function found(known: { id: string; track: NsysTrack | undefined }): NsysTrack {
  if (known.track === undefined)
    throw new FlameoxError("INTERNAL_ERROR", `Nsight export: no track was found for ${known.id}`);
  return known.track;
}

export class NsysRowReader {
  readonly meta: Record<string, string> = {};
  readonly metaTable: string | null;
  readonly tracks = new Map<string, NsysTrack>();
  /** Events kept per category, in the order of the tables the export has. */
  readonly counts: Record<string, number> = {};
  readonly skipped: Record<string, number> = {
    unresolved_string_ids: 0,
    negative_durations: 0,
    unclosed_nvtx_ranges: 0,
    other_nvtx_records: 0,
  };
  readonly skippedWhy: Record<string, string> = {
    unresolved_string_ids: "Names whose StringIds id the export lacks are shown as (string N)",
    negative_durations: "Events ending before they start were skipped",
    unclosed_nvtx_ranges:
      "NVTX ranges without an end (the capture stopped while they were open) were skipped",
    other_nvtx_records:
      "NVTX records that are not ranges or marks (domain, category and thread names) are not " +
      "events",
  };
  /** Events kept so far. */
  kept = 0;
  private readonly strings = new Map<number, string>();
  private readonly gpuNames = new Map<number, string>();
  private readonly processNames = new Map<number, string>();
  private readonly threadNames = new Map<number, string>();

  constructor(
    readonly db: Database,
    private readonly schema: SchemaObject[],
    readonly label: string,
    readonly maxEvents: number,
  ) {
    if (!this.has("StringIds", ["id", "value"]))
      throw parseFailed(label, "expected a StringIds table with id and value columns");
    this.metaTable =
      ["META_DATA_EXPORT", "EXPORT_META_DATA"].find((t) => this.has(t, ["name", "value"])) ?? null;
    if (this.metaTable)
      for (const r of db.query(`SELECT name, value FROM ${this.metaTable} LIMIT 1000`).all() as {
        name: unknown;
        value: unknown;
      }[])
        this.meta[String(r.name)] = String(r.value);
    for (const r of db
      .query(`SELECT id, value FROM StringIds LIMIT ${MAX_STRINGS + 1}`)
      .iterate() as Iterable<{ id: number; value: unknown }>)
      this.strings.set(r.id, String(r.value));
    if (this.strings.size > MAX_STRINGS)
      throw tooLarge(label, "strings", this.strings.size, MAX_STRINGS);
    if (this.has("TARGET_INFO_GPU", ["id", "name"]))
      for (const r of db.query("SELECT id, name FROM TARGET_INFO_GPU LIMIT 1000").all() as {
        id: number;
        name: unknown;
      }[])
        this.gpuNames.set(r.id, String(r.name));
    if (this.has("PROCESSES", ["pid", "name"]))
      for (const r of db.query(`SELECT pid, name FROM PROCESSES LIMIT ${maxEvents}`).all() as {
        pid: number;
        name: unknown;
      }[])
        this.processNames.set(r.pid, String(r.name));
    if (this.has("ThreadNames", ["nameId", "globalTid"]))
      for (const r of db
        .query(`SELECT nameId, globalTid FROM ThreadNames LIMIT ${maxEvents}`)
        .all() as { nameId: unknown; globalTid: number }[])
        this.threadNames.set(r.globalTid, this.text(r.nameId));
  }

  /** The table's columns (none when the export lacks it); refuses generated columns. */
  columns(table: string): Set<string> {
    return tableColumns(this.db, this.schema, table, this.label);
  }

  private has(table: string, wanted: string[]): boolean {
    const c = this.columns(table);
    return wanted.every((w) => c.has(w));
  }

  /**
   * The select list that reads `spec`'s rows (columns the export lacks read as null), or null
   * when the export has no such table. Counts the table's category from here on.
   */
  selectList(spec: EventTable): string[] | null {
    const have = this.columns(spec.table);
    if (have.size === 0) return null;
    if (!have.has("start") || !have.has("end"))
      throw parseFailed(this.label, `table ${spec.table} lacks start or end`);
    this.counts[spec.category] = 0;
    return ["start", "end", ...trackColumns(spec), ...spec.columns].map((c) =>
      have.has(c) ? `"${c}"` : `NULL AS "${c}"`,
    );
  }

  /**
   * Event tables are read up to this many rows each (one more than the events allowed, so an
   * export over the limit is refused rather than cut).
   */
  get rowLimit(): number {
    return this.maxEvents + 1;
  }

  private text(id: unknown): string {
    const n = num(id);
    if (n === null) return "(unnamed)";
    const s = this.strings.get(n);
    if (s === undefined) {
      this.skipped.unresolved_string_ids! += 1;
      return `(string ${n})`;
    }
    return s;
  }

  /** The id of the track a row of `spec`'s table is on. */
  trackId(spec: EventTable, row: NsysRow): string {
    if (spec.track === "thread") {
      const { pid, tid } = hostIds(num(row.globalTid) ?? 0);
      return `${pid}:${tid}`;
    }
    const { pid } = hostIds(num(row.globalPid) ?? 0);
    return (
      `gpu${num(row.deviceId) ?? 0}:pid${pid}.ctx${num(row.contextId) ?? 0}.stream` +
      `${num(row.streamId) ?? 0}`
    );
  }

  /**
   * The identity and names of that track as this row gives them (the first row of a track to
   * become an event names it).
   */
  trackIdentity(spec: EventTable, row: NsysRow): NsysTrack {
    if (spec.track === "thread") {
      const g = num(row.globalTid) ?? 0;
      const { pid, tid } = hostIds(g);
      return {
        pid: String(pid),
        tid: String(tid),
        processName: this.processNames.get(pid) ?? null,
        threadName: this.threadNames.get(g) ?? null,
      };
    }
    const device = num(row.deviceId) ?? 0;
    const { pid } = hostIds(num(row.globalPid) ?? 0);
    const gpu = this.gpuNames.get(device);
    return {
      pid: `gpu${device}`,
      tid: `pid${pid}.ctx${num(row.contextId) ?? 0}.stream${num(row.streamId) ?? 0}`,
      processName: `GPU ${device}${gpu !== undefined ? `: ${gpu}` : ""}`,
      threadName: `stream ${num(row.streamId)} (pid ${pid}, context ${num(row.contextId)})`,
    };
  }

  /**
   * The event a row of `spec`'s table is, or null when it is skipped (counted in `skipped`).
   * Throws for a row without a start time and for the event past `maxEvents`. `known`: the
   * row's track, found for its track columns beforehand (the row then need not have them).
   */
  event(
    spec: EventTable,
    row: NsysRow,
    known?: { id: string; track: NsysTrack | undefined },
  ): NsysEvent | null {
    const start = num(row.start);
    let end = num(row.end);
    if (start === null) throw parseFailed(this.label, `a ${spec.table} row has no start time`);
    let name: string;
    let args: Record<string, unknown> | null = null;
    switch (spec.category) {
      case "cuda_kernel":
        name = this.text(row.shortName ?? row.demangledName);
        args = {
          correlation_id: row.correlationId,
          grid: [row.gridX, row.gridY, row.gridZ],
          block: [row.blockX, row.blockY, row.blockZ],
          registers_per_thread: row.registersPerThread,
          demangled:
            row.demangledName === null
              ? null
              : this.text(row.demangledName).slice(0, MAX_ARG_CHARS),
        };
        break;
      case "cuda_memcpy":
        name = `[CUDA memcpy ${MEMCPY_KINDS[num(row.copyKind) ?? 0] ?? `kind ${row.copyKind}`}]`;
        args = { correlation_id: row.correlationId, bytes: row.bytes, copy_kind: row.copyKind };
        break;
      case "cuda_memset":
        name = "[CUDA memset]";
        args = { correlation_id: row.correlationId, bytes: row.bytes, value: row.value };
        break;
      case "nvtx": {
        const type = num(row.eventType);
        if (type === null || (type !== NVTX_MARK && !NVTX_RANGES.has(type))) {
          this.skipped.other_nvtx_records! += 1;
          return null;
        }
        if (type === NVTX_MARK) end = null;
        else if (end === null) {
          this.skipped.unclosed_nvtx_ranges! += 1;
          return null;
        }
        name = typeof row.text === "string" ? row.text : this.text(row.textId);
        break;
      }
      default:
        name = this.text(row.nameId);
        args = {
          ...(row.correlationId !== undefined ? { correlation_id: row.correlationId } : {}),
          return_value: row.returnValue,
        };
    }
    if (end !== null && end < start) {
      this.skipped.negative_durations! += 1;
      return null;
    }
    if (spec.category !== "nvtx" && end === null) end = start;
    if (this.kept >= this.maxEvents)
      throw tooLarge(this.label, "trace events", this.kept + 1, this.maxEvents);
    const track = known ? known.id : this.trackId(spec, row);
    if (!this.tracks.has(track))
      this.tracks.set(track, known ? found(known) : this.trackIdentity(spec, row));
    this.counts[spec.category]! += 1;
    this.kept += 1;
    return {
      track,
      category: spec.category,
      name,
      start,
      end,
      args: args === null ? null : JSON.stringify(args),
    };
  }
}
