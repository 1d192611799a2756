/**
 * Reads an Nsight Systems export into events and tracks with fixed, bounded SELECTs over
 * the tables it has (see nsys-tables.ts), through the untrusted-SQLite core.
 */
import type { Database } from "bun:sqlite";
import { parseFailed, tooLarge } from "../json-guard.ts";
import {
  openUntrustedSqlite,
  type SchemaObject,
  sqliteFailure,
  tableColumns,
} from "../sqlite/untrusted-database.ts";
import { NsysEvents } from "./device-event-columns.ts";
import { EVENT_TABLES, hostIds, MEMCPY_KINDS, NVTX_MARK, NVTX_RANGES } from "./nsys-tables.ts";

/**
 * Strings kept in the id table; an export's StringIds holds function and kernel names, thousands at
 * most.
 */
const MAX_STRINGS = 5_000_000;
const MAX_ARG_CHARS = 256;

export type { NsysEvent } from "./device-event-columns.ts";

export interface NsysTrack {
  pid: string;
  tid: string;
  processName: string | null;
  threadName: string | null;
}

export interface NsysRead {
  meta: Record<string, string>;
  metaTable: string | null;
  events: NsysEvents;
  tracks: Map<string, NsysTrack>;
  counts: Record<string, number>;
  skipped: Record<string, number>;
  skippedWhy: Record<string, string>;
}

export function readNsysEvents(bytes: Uint8Array, label: string, maxEvents: number): NsysRead {
  const { db, schema } = openUntrustedSqlite(bytes, label);
  try {
    return read(db, schema, label, maxEvents);
  } catch (error) {
    throw sqliteFailure(label, error);
  } finally {
    db.close();
  }
}

const num = (v: unknown): number | null =>
  typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : null;

function read(db: Database, schema: SchemaObject[], label: string, maxEvents: number): NsysRead {
  const columns = (table: string) => tableColumns(db, schema, table, label);
  const has = (table: string, wanted: string[]) => {
    const c = columns(table);
    return wanted.every((w) => c.has(w));
  };
  if (!has("StringIds", ["id", "value"]))
    throw parseFailed(label, "expected a StringIds table with id and value columns");

  const meta: Record<string, string> = {};
  const metaTable =
    ["META_DATA_EXPORT", "EXPORT_META_DATA"].find((t) => has(t, ["name", "value"])) ?? null;
  if (metaTable)
    for (const r of db.query(`SELECT name, value FROM ${metaTable} LIMIT 1000`).all() as {
      name: unknown;
      value: unknown;
    }[])
      meta[String(r.name)] = String(r.value);

  const strings = new Map<number, string>();
  for (const r of db
    .query(`SELECT id, value FROM StringIds LIMIT ${MAX_STRINGS + 1}`)
    .iterate() as Iterable<{ id: number; value: unknown }>)
    strings.set(r.id, String(r.value));
  if (strings.size > MAX_STRINGS) throw tooLarge(label, "strings", strings.size, MAX_STRINGS);
  const skipped: Record<string, number> = {
    unresolved_string_ids: 0,
    negative_durations: 0,
    unclosed_nvtx_ranges: 0,
    other_nvtx_records: 0,
  };
  const skippedWhy: Record<string, string> = {
    unresolved_string_ids: "Names whose StringIds id the export lacks are shown as (string N)",
    negative_durations: "Events ending before they start were skipped",
    unclosed_nvtx_ranges:
      "NVTX ranges without an end (the capture stopped while they were open) were skipped",
    other_nvtx_records:
      "NVTX records that are not ranges or marks (domain, category and thread names) are not events",
  };
  const text = (id: unknown): string => {
    const n = num(id);
    if (n === null) return "(unnamed)";
    const s = strings.get(n);
    if (s === undefined) {
      skipped.unresolved_string_ids! += 1;
      return `(string ${n})`;
    }
    return s;
  };

  const gpuNames = new Map<number, string>();
  if (has("TARGET_INFO_GPU", ["id", "name"]))
    for (const r of db.query("SELECT id, name FROM TARGET_INFO_GPU LIMIT 1000").all() as {
      id: number;
      name: unknown;
    }[])
      gpuNames.set(r.id, String(r.name));
  const processNames = new Map<number, string>();
  if (has("PROCESSES", ["pid", "name"]))
    for (const r of db.query(`SELECT pid, name FROM PROCESSES LIMIT ${maxEvents}`).all() as {
      pid: number;
      name: unknown;
    }[])
      processNames.set(r.pid, String(r.name));
  const threadNames = new Map<number, string>();
  if (has("ThreadNames", ["nameId", "globalTid"]))
    for (const r of db
      .query(`SELECT nameId, globalTid FROM ThreadNames LIMIT ${maxEvents}`)
      .all() as { nameId: unknown; globalTid: number }[])
      threadNames.set(r.globalTid, text(r.nameId));

  const tracks = new Map<string, NsysTrack>();
  const threadTrack = (globalTid: unknown): string => {
    const g = num(globalTid) ?? 0;
    const { pid, tid } = hostIds(g);
    const id = `${pid}:${tid}`;
    if (!tracks.has(id))
      tracks.set(id, {
        pid: String(pid),
        tid: String(tid),
        processName: processNames.get(pid) ?? null,
        threadName: threadNames.get(g) ?? null,
      });
    return id;
  };
  const streamTrack = (row: Record<string, unknown>): string => {
    const device = num(row.deviceId) ?? 0;
    const { pid } = hostIds(num(row.globalPid) ?? 0);
    const tid = `pid${pid}.ctx${num(row.contextId) ?? 0}.stream${num(row.streamId) ?? 0}`;
    const id = `gpu${device}:${tid}`;
    if (!tracks.has(id)) {
      tracks.set(id, {
        pid: `gpu${device}`,
        tid,
        processName: `GPU ${device}${gpuNames.has(device) ? `: ${gpuNames.get(device)}` : ""}`,
        threadName: `stream ${num(row.streamId)} (pid ${pid}, context ${num(row.contextId)})`,
      });
    }
    return id;
  };

  const events = new NsysEvents();
  const counts: Record<string, number> = {};
  for (const spec of EVENT_TABLES) {
    const have = columns(spec.table);
    if (have.size === 0) continue;
    const trackColumns =
      spec.track === "stream" ? ["deviceId", "contextId", "streamId", "globalPid"] : ["globalTid"];
    if (!have.has("start") || !have.has("end"))
      throw parseFailed(label, `table ${spec.table} lacks start or end`);
    const select = ["start", "end", ...trackColumns, ...spec.columns].map((c) =>
      have.has(c) ? `"${c}"` : `NULL AS "${c}"`,
    );
    counts[spec.category] = 0;
    for (const row of db
      .query(`SELECT ${select.join(", ")} FROM ${spec.table} LIMIT ${maxEvents + 1}`)
      .iterate() as Iterable<Record<string, unknown>>) {
      const start = num(row.start);
      let end = num(row.end);
      if (start === null) throw parseFailed(label, `a ${spec.table} row has no start time`);
      let name: string;
      let args: Record<string, unknown> | null = null;
      switch (spec.category) {
        case "cuda_kernel":
          name = text(row.shortName ?? row.demangledName);
          args = {
            correlation_id: row.correlationId,
            grid: [row.gridX, row.gridY, row.gridZ],
            block: [row.blockX, row.blockY, row.blockZ],
            registers_per_thread: row.registersPerThread,
            demangled:
              row.demangledName === null ? null : text(row.demangledName).slice(0, MAX_ARG_CHARS),
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
            skipped.other_nvtx_records! += 1;
            continue;
          }
          if (type === NVTX_MARK) end = null;
          else if (end === null) {
            skipped.unclosed_nvtx_ranges! += 1;
            continue;
          }
          name = typeof row.text === "string" ? row.text : text(row.textId);
          break;
        }
        default:
          name = text(row.nameId);
          args = {
            ...(row.correlationId !== undefined ? { correlation_id: row.correlationId } : {}),
            return_value: row.returnValue,
          };
      }
      if (end !== null && end < start) {
        skipped.negative_durations! += 1;
        continue;
      }
      if (spec.category !== "nvtx" && end === null) end = start;
      if (events.length >= maxEvents)
        throw tooLarge(label, "trace events", events.length + 1, maxEvents);
      const track = spec.track === "stream" ? streamTrack(row) : threadTrack(row.globalTid);
      events.push({
        track,
        category: spec.category,
        name,
        start,
        end,
        args: args === null ? null : JSON.stringify(args),
      });
      counts[spec.category]! += 1;
    }
  }
  return { meta, metaTable, events, tracks, counts, skipped, skippedWhy };
}
