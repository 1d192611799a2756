/**
 * Nsight Systems SQLite exports (`nsys export --type sqlite`). The schema is recognised by
 * its tables (StringIds, TARGET_INFO_*, CUPTI_ACTIVITY_KIND_*), and the exporter's version
 * and schema version are read from its metadata table (EXPORT_META_DATA before 2023,
 * META_DATA_EXPORT after). CUDA kernels, memcpy and memset become trace events on one
 * track per GPU device, context and stream; CUDA runtime and driver API calls, NVTX ranges
 * and marks and OS runtime calls on one track per host thread. Names are resolved through
 * StringIds; the CUPTI correlation id that ties a launch to its kernel is kept in both
 * events' args. Depth is the nesting on each track. Read through the untrusted-SQLite core.
 */
import type { DetectInput, ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { isSqliteHeader } from "../sqlite/untrusted-database.ts";
import { readNsysEvents } from "./read-events.ts";

const NAME = "nsys-sqlite";
const VERSION = "1.0.0";
const LABEL = "Nsight Systems SQLite export";
const MAX_NAME_CHARS = 4096;

export function detectNsysSqlite({ head }: DetectInput): number {
  if (!isSqliteHeader(head)) return 0;
  return /CREATE TABLE StringIds\b/.test(head) && /CREATE TABLE (?:TARGET_INFO_|ANALYSIS_DETAILS|ThreadNames|PROCESSES)\b/.test(head) ? 0.95 : 0;
}

export function extractNsysSqlite(input: ExtractInput): NormalizedEvidence {
  const read = readNsysEvents(input.bytes, LABEL, input.limits.maxEvents);
  const tables = emptyTables();
  const out = tables.trace_events;
  const limitations: Limitation[] = [];
  // Rows go track by track, each in time order with its nesting depth.
  const order = read.events.map((_, i) => i);
  order.sort((a, b) => {
    const x = read.events[a]!;
    const y = read.events[b]!;
    return x.track < y.track ? -1 : x.track > y.track ? 1 : x.start - y.start || (y.end ?? y.start) - (x.end ?? x.start) || a - b;
  });
  let open: number[] = [];
  let track: string | null = null;
  let index = 0;
  for (const i of order) {
    const e = read.events[i]!;
    if (e.track !== track) {
      track = e.track;
      open = [];
    }
    while (open.length > 0 && open.at(-1)! <= e.start) open.pop();
    const t = read.tracks.get(e.track)!;
    out.append({
      event_index: index++, track_id: e.track, pid: t.pid, tid: t.tid, process_name: t.processName, thread_name: t.threadName,
      name: e.name.slice(0, MAX_NAME_CHARS), category: e.category, phase: e.end === null ? "i" : "X", ts_ns: e.start,
      dur_ns: e.end === null ? null : e.end - e.start, depth: open.length, args_json: e.args === null ? null : e.args.slice(0, input.limits.maxArgsBytes),
      flags: null, thread_dur_ns: null,
    });
    if (e.end !== null && e.end > e.start) open.push(e.end);
  }
  if (read.counts.cuda_kernel === undefined && read.counts.cuda_runtime === undefined) {
    limitations.push({ code: "no_cuda_activity", message: "The export has no CUDA kernel or runtime API table; CUDA was not traced" });
  }
  for (const [code, count] of Object.entries(read.skipped)) if (count > 0) limitations.push({ code, message: read.skippedWhy[code]!, count });
  return {
    adapter: NAME, adapterVersion: VERSION, producer: "nsys", producerVersion: read.meta.EXPORT_PRODUCT_VERSION ?? null, tables, limitations,
    summary: {
      export_schema_version: read.meta.EXPORT_SCHEMA_VERSION ?? null, metadata_table: read.metaTable, tracks: read.tracks.size, trace_events: index,
      ...Object.fromEntries(Object.entries(read.counts).map(([k, v]) => [`${k}_events`, v])),
    },
  };
}

export const nsysSqliteAdapter: ProducerAdapter = {
  name: NAME,
  version: VERSION,
  artifactKind: "execution_trace",
  mediaType: "application/vnd.sqlite3",
  tables: ["trace_events"],
  detect: detectNsysSqlite,
  extract: extractNsysSqlite,
};
