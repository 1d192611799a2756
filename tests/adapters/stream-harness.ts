import { listItems, stringCell } from "../../src/adapters/common/batch-table-buffer.ts";
/**
 * Running streaming adapters (WASM parsers) in tests: feed a payload in chunks, collect
 * the column batches, and read them back as rows comparable with TableBuffer rows.
 */
import {
  DEFAULT_ADAPTER_LIMITS,
  type AdapterLimits,
  type ProducerAdapter,
  type SpillSpace,
  type StreamExtractInput,
  type StreamedEvidence,
} from "../../src/adapters/adapter.ts";
import type { ColumnBatch, ColumnVector } from "../../src/domain/column-batch.ts";
import type { EvidenceTableName } from "../../src/domain/evidence-schema.ts";
import type { TableBuffer } from "../../src/domain/table-buffer.ts";
import { joinTracks, rowsOf, type Row, withCounterRows } from "./evidence-checks.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";

export interface StreamRun {
  evidence: StreamedEvidence;
  batches: ColumnBatch[];
}

export async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size)
    yield bytes.subarray(at, Math.min(bytes.length, at + size));
}

export async function runStream(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  options: {
    displayName?: string;
    chunkSize?: number;
    limits?: Partial<AdapterLimits>;
    spoolRunEvents?: number;
    spill?: SpillSpace;
    maxStacksInMemory?: number;
    recordBytesInMemory?: number;
    pendingEventsInMemory?: number;
    pieces?: StreamExtractInput["pieces"];
    runOffload?: StreamExtractInput["runOffload"];
    payloadBytes?: number;
  } = {},
): Promise<StreamRun> {
  const batches: ColumnBatch[] = [];
  const evidence = await adapter.extractStream!({
    chunks: chunked(bytes, options.chunkSize ?? 1 << 16),
    displayName: options.displayName ?? "case",
    limits: { ...DEFAULT_ADAPTER_LIMITS, ...options.limits },
    sink: { writeBatch: async (batch) => void batches.push(batch) },
    spoolRunEvents: options.spoolRunEvents,
    spill: options.spill,
    maxStacksInMemory: options.maxStacksInMemory,
    recordBytesInMemory: options.recordBytesInMemory,
    pendingEventsInMemory: options.pendingEventsInMemory,
    pieces: options.pieces,
    runOffload: options.runOffload,
    payloadBytes: options.payloadBytes,
  });
  return { evidence, batches };
}

function cell(vector: ColumnVector, i: number): unknown {
  if (vector.valid && (vector.valid[i >> 3]! & (1 << (i & 7))) === 0) return null;
  switch (vector.type) {
    case "utf8":
    case "utf8_dict":
      return stringCell(vector, i);
    case "int64":
      return String(vector.values[i]);
    case "list_utf8":
    case "list_utf8_dict":
      return listItems(vector, i);
    case "bool":
      return ((vector.values[i >> 3]! >> (i & 7)) & 1) === 1;
    default:
      return vector.values[i];
  }
}

/** Rows of a streamed table, from its column batches. */
export function streamedTableRows(run: StreamRun, table: EvidenceTableName): Row[] {
  return streamedRows(run.batches, table);
}

/** Rows of one table from its batches; int64 cells as decimal strings. */
export function streamedRows(batches: ColumnBatch[], table: EvidenceTableName): Row[] {
  const rows: Row[] = [];
  for (const batch of batches) {
    if (batch.table !== table) continue;
    const names = Object.keys(batch.columns);
    for (let i = 0; i < batch.length; i++) {
      const row: Row = {};
      for (const name of names) row[name] = cell(batch.columns[name]!, i) as Row[string];
      rows.push(row);
    }
  }
  return rows;
}

/** An evidence's trace_events rows with their tracks joined, as bufferRows gives them. */
export function traceEventBufferRows(evidence: Pick<NormalizedEvidence, "tables">): Row[] {
  const tracks = bufferRows(evidence.tables.tracks);
  const counters = evidence.tables.trace_counters ? bufferRows(evidence.tables.trace_counters) : [];
  return joinTracks(
    withCounterRows(bufferRows(evidence.tables.trace_events), counters, tracks),
    tracks,
  );
}

/**
 * TableBuffer rows as storage keeps them (comparable with streamedRows): int64 cells as
 * decimal strings, strings as their UTF-8 round trip (a lone surrogate is stored as U+FFFD).
 */
export function bufferRows(table: TableBuffer): Row[] {
  const int64 = table.schema.columns.filter((c) => c.type === "int64").map((c) => c.name);
  const utf8Columns = table.schema.columns.filter((c) => c.type === "utf8").map((c) => c.name);
  return rowsOf(table).map((row) => {
    for (const name of int64)
      if (row[name] !== null && row[name] !== undefined) row[name] = String(row[name]);
    for (const name of utf8Columns)
      if (typeof row[name] === "string") row[name] = (row[name] as string).toWellFormed();
    return row;
  });
}
