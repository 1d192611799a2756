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
 * What is held while an export is read: its small tables (StringIds, thread, process and
 * GPU names), its tracks, one batch of rows and SQLite's page cache and sorter memory
 * (CACHE_KIB). The events themselves are not: SQLite reads them in output order
 * (sorted-events.ts), spilling its sort to temporary files (in SQLite's temporary
 * directory, TMPDIR or else /var/tmp, unlinked as soon as they are created). In a parse
 * worker the export is spooled to a spill file and SQLite reads that file, so the payload
 * is not held either (it was held twice: the collected bytes and SQLite's deserialized
 * copy); callers without file spills deserialize it. Exports SQLite cannot order exactly
 * as held events would be ordered (sorted-events.ts says which) have their events held as
 * columns while they are ordered (read-events.ts), as every export once had: ~40 bytes and
 * the args' bytes per event.
 */
import { type Database, SQLiteError } from "bun:sqlite";
import { collectChunks } from "../common/collect-chunks.ts";
import type {
  ExtractInput,
  ProducerAdapter,
  SpillFile,
  StreamExtractInput,
  StreamedEvidence,
} from "../adapter.ts";
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { FlameoxError, storageFailure } from "../../domain/errors.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import {
  openUntrustedSqlite,
  openUntrustedSqliteFile,
  type SchemaObject,
  sqliteFailure,
} from "../sqlite/untrusted-database.ts";
import { nsysSqliteDescription } from "./description.ts";
import { eventBatches, trackRows } from "./event-batches.ts";
import { NsysRowReader } from "./nsys-rows.ts";
import { readHeldEvents } from "./read-events.ts";
import { sortedEventBatches, sortedReadPlan } from "./sorted-events.ts";

const NAME = nsysSqliteDescription.name;
const VERSION = nsysSqliteDescription.version;
const LABEL = "Nsight Systems SQLite export";
/**
 * SQLite's page cache, which is also what its sorter sorts in memory before it spills a
 * run to a temporary file. Measured on a 1M-kernel export: 2 MiB (SQLite's default) to 64 MiB
 * made no difference in CPU time, 16 MiB held 30 MB more than 2 MiB.
 */
const CACHE_KIB = 8192;

function describe(read: NsysRowReader): Omit<NormalizedEvidence, "tables"> {
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
      trace_events: read.kept,
      ...Object.fromEntries(Object.entries(read.counts).map(([k, v]) => [`${k}_events`, v])),
    },
  };
}

/**
 * How the events were put in order: by SQLite as they were read, or held and sorted in memory.
 */
export type EventOrder = "sqlite" | "held";

/** One export being read: its `trace_events` batches, then its evidence and `tracks` rows. */
export class NsysExportRead {
  private reader: NsysRowReader | null = null;
  /** How the events were ordered, once `batches` has run to its end. */
  order: EventOrder | null = null;

  /** `order` "held" forces the in-memory path (tests compare the two). */
  constructor(
    private readonly db: Database,
    private readonly schema: SchemaObject[],
    private readonly limits: ExtractInput["limits"],
    private readonly force: "auto" | "held" = "auto",
  ) {}

  /** The export's `trace_events` rows, in order, in batches. Iterate once. */
  *batches(): Generator<ColumnBatch> {
    let reader: NsysRowReader;
    let plan: ReturnType<typeof sortedReadPlan>;
    try {
      reader = new NsysRowReader(this.db, this.schema, LABEL, this.limits.maxEvents);
      plan = this.force === "held" ? { sortable: false, reason: "asked" } : sortedReadPlan(reader);
    } catch (error) {
      throw sqliteFailure(LABEL, error);
    }
    this.reader = reader;
    if (plan.sortable) {
      // Reading and row building interleave here: only SQLite's own errors are the file's.
      try {
        yield* sortedEventBatches(reader, plan, this.limits.maxArgsBytes);
      } catch (error) {
        if (error instanceof FlameoxError || storageFailure(error) !== null) throw error;
        throw error instanceof SQLiteError ? sqliteFailure(LABEL, error) : error;
      }
      this.order = "sqlite";
      return;
    }
    let read: ReturnType<typeof readHeldEvents>;
    try {
      read = readHeldEvents(reader);
    } catch (error) {
      throw sqliteFailure(LABEL, error);
    }
    yield* eventBatches(read, this.limits.maxArgsBytes);
    this.order = "held";
  }

  private done(): NsysRowReader {
    if (this.reader === null || this.order === null)
      throw new FlameoxError("INTERNAL_ERROR", "Nsight export: its events were not all read");
    return this.reader;
  }

  evidence(): Omit<NormalizedEvidence, "tables"> {
    return describe(this.done());
  }

  tracks(): TableBuffer {
    return trackRows(this.done());
  }
}

/** SQLite settings for reading an export (see CACHE_KIB): a bounded cache, sorts to files. */
function tune(db: Database): void {
  db.run(`PRAGMA cache_size = -${CACHE_KIB}`);
  db.run("PRAGMA temp_store = FILE");
}

/**
 * The payload copied into a spill file SQLite can open, or null where spills are not files
 * (then the caller collects the chunks).
 */
async function spoolPayload(input: StreamExtractInput): Promise<SpillFile | null> {
  const file = input.spill?.create();
  if (file === undefined) return null;
  if (file.path === undefined) {
    file.dispose();
    return null;
  }
  try {
    for await (const chunk of input.chunks) file.append(chunk);
  } catch (error) {
    file.dispose();
    throw error;
  }
  return file;
}

async function extractNsysSqliteStream(input: StreamExtractInput): Promise<StreamedEvidence> {
  // SQLite needs the whole file before it can read a page of it: a copy on disk, or in memory.
  const spooled = await spoolPayload(input);
  try {
    const { db, schema } = spooled
      ? openUntrustedSqliteFile(spooled.path!, LABEL)
      : openUntrustedSqlite(await collectChunks(input.chunks), LABEL);
    try {
      tune(db);
      const read = new NsysExportRead(db, schema, input.limits);
      for (const batch of read.batches()) await input.sink.writeBatch(batch);
      return { ...read.evidence(), tables: { tracks: read.tracks() }, streamed: ["trace_events"] };
    } finally {
      db.close();
    }
  } finally {
    spooled?.dispose();
  }
}

export const nsysSqliteAdapter: ProducerAdapter = {
  ...nsysSqliteDescription,
  extractStream: extractNsysSqliteStream,
};
