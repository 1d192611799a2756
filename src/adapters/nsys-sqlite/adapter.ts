/**
 * Nsight Systems SQLite exports (`nsys export --type sqlite`). The schema is recognised by
 * its tables (StringIds, TARGET_INFO_*, CUPTI_ACTIVITY_KIND_*), and the exporter's version
 * and schema version are read from its metadata table (EXPORT_META_DATA before 2023,
 * META_DATA_EXPORT after). CUDA kernels, memcpy and memset become trace events on one
 * track per GPU device, context and stream; CUDA runtime and driver API calls, NVTX ranges
 * and marks and OS runtime calls on one track per host thread. Names are resolved through
 * StringIds; the CUPTI correlation id that ties a launch to its kernel is kept in both
 * events' args. Depth is the nesting on each track; each track's pid, tid and names are
 * one `tracks` row. Read through the untrusted-SQLite core.
 *
 * One pipeline for both entry points: the rows are built as column batches
 * (event-batches.ts); `extractStream` writes them through the sink as they are built,
 * `extract` collects them into a table.
 */
import { collectChunks } from "../common/collect-chunks.ts";
import type {
  DetectInput,
  ExtractInput,
  ProducerAdapter,
  StreamExtractInput,
  StreamedEvidence,
} from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { tableOfBatches } from "../common/batch-table-buffer.ts";
import { isSqliteHeader } from "../sqlite/untrusted-database.ts";
import { eventBatches, trackRows } from "./event-batches.ts";
import { type NsysRead, readNsysEvents } from "./read-events.ts";

const NAME = "nsys-sqlite";
const VERSION = "1.0.0";
const LABEL = "Nsight Systems SQLite export";

export function detectNsysSqlite({ head }: DetectInput): number {
  if (!isSqliteHeader(head)) return 0;
  return /CREATE TABLE StringIds\b/.test(head) &&
    /CREATE TABLE (?:TARGET_INFO_|ANALYSIS_DETAILS|ThreadNames|PROCESSES)\b/.test(head)
    ? 0.95
    : 0;
}

function describe(read: NsysRead): Omit<NormalizedEvidence, "tables"> {
  const limitations: Limitation[] = [];
  if (read.counts.cuda_kernel === undefined && read.counts.cuda_runtime === undefined) {
    limitations.push({
      code: "no_cuda_activity",
      message: "The export has no CUDA kernel or runtime API table; CUDA was not traced",
    });
  }
  for (const [code, count] of Object.entries(read.skipped))
    if (count > 0) limitations.push({ code, message: read.skippedWhy[code]!, count });
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: "nsys",
    producerVersion: read.meta.EXPORT_PRODUCT_VERSION ?? null,
    limitations,
    summary: {
      export_schema_version: read.meta.EXPORT_SCHEMA_VERSION ?? null,
      metadata_table: read.metaTable,
      tracks: read.tracks.size,
      trace_events: read.events.length,
      ...Object.fromEntries(Object.entries(read.counts).map(([k, v]) => [`${k}_events`, v])),
    },
  };
}

export function extractNsysSqlite(input: ExtractInput): NormalizedEvidence {
  const read = readNsysEvents(input.bytes, LABEL, input.limits.maxEvents);
  const tables = emptyTables();
  tables.trace_events = tableOfBatches(
    eventBatches(read, input.limits.maxArgsBytes),
    "trace_events",
  );
  tables.tracks = trackRows(read);
  return { ...describe(read), tables };
}

async function extractNsysSqliteStream(input: StreamExtractInput): Promise<StreamedEvidence> {
  // SQLite needs the whole file before it can read a page of it.
  const read = readNsysEvents(await collectChunks(input.chunks), LABEL, input.limits.maxEvents);
  for (const batch of eventBatches(read, input.limits.maxArgsBytes))
    await input.sink.writeBatch(batch);
  return { ...describe(read), tables: { tracks: trackRows(read) }, streamed: ["trace_events"] };
}

export const nsysSqliteAdapter: ProducerAdapter = {
  name: NAME,
  version: VERSION,
  artifactKind: "execution_trace",
  mediaType: "application/vnd.sqlite3",
  tables: ["trace_events", "tracks"],
  detect: detectNsysSqlite,
  extract: extractNsysSqlite,
  extractStream: extractNsysSqliteStream,
};
