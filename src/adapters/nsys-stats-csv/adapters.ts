/**
 * `nsys stats --report <name> --format csv` output, one report per file, recognised by its
 * header row (report-header.ts). Two adapters, because the reports are two kinds of
 * evidence:
 *   - nsys-stats-trace-csv: `cuda_gpu_trace`, one row per kernel or memory operation, read
 *     into trace events on device/stream tracks (gpu-trace.ts), like the SQLite export's;
 *   - nsys-stats-summary-csv: the summary reports, read into per-name measurements with the
 *     statistic each column holds (summary.ts).
 * Both read the rows through one streaming CSV reader (csv-records.ts).
 */
import type { ProducerAdapter, StreamExtractInput, StreamedEvidence } from "../adapter.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { parseFailed } from "../json-guard.ts";
import { eventBatches, trackRows } from "../nsys-sqlite/event-batches.ts";
import { eachStreamedRecord } from "./csv-records.ts";
import { nsysStatsSummaryDescription, nsysStatsTraceDescription } from "./description.ts";
import { GpuTraceReader, type GpuTraceRead } from "./gpu-trace.ts";
import {
  findReportHeader,
  type FoundHeader,
  type SummaryHeader,
  type TraceHeader,
} from "./report-header.ts";
import { SummaryReader } from "./summary.ts";

const TRACE_LABEL = "nsys stats cuda_gpu_trace CSV";
const SUMMARY_LABEL = "nsys stats summary CSV";
const HEAD_BYTES = 64 * 1024;
const decoder = new TextDecoder();

function headerOf(
  bytes: Uint8Array,
  displayName: string,
  kind: "trace" | "summary",
  label: string,
): FoundHeader {
  const found = findReportHeader(decoder.decode(bytes.subarray(0, HEAD_BYTES)), displayName);
  if (found === null || found.header.kind !== kind)
    throw parseFailed(
      label,
      `no ${kind === "trace" ? "cuda_gpu_trace" : "summary report"} header row among the ` +
        `first lines`,
    );
  return found;
}

/**
 * The first 64 KiB of a chunked payload (to find the header), and every chunk again from the start.
 */
async function peek(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ head: Uint8Array; all: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    length += next.value.length;
  }
  const head = new Uint8Array(length);
  let at = 0;
  for (const chunk of seen) {
    head.set(chunk, at);
    at += chunk.length;
  }
  async function* all(): AsyncIterable<Uint8Array> {
    yield* seen;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      yield next.value;
  }
  return { head, all: all() };
}

// --- cuda_gpu_trace -------------------------------------------------------------------

function describeTrace(read: GpuTraceRead): Omit<NormalizedEvidence, "tables"> {
  const limitations: Limitation[] = [
    {
      code: "device_activity_only",
      message:
        "cuda_gpu_trace holds GPU activity only: no CUDA API calls, NVTX ranges or host " +
        "threads, so launch latency and host activity are not known; the report has no " +
        "process id either",
    },
  ];
  return {
    adapter: nsysStatsTraceDescription.name,
    adapterVersion: nsysStatsTraceDescription.version,
    producer: "nsys",
    producerVersion: null,
    limitations,
    summary: {
      report: "cuda_gpu_trace",
      tracks: read.tracks.size,
      devices: read.devices.size,
      trace_events: read.events.length,
      ...Object.fromEntries(Object.entries(read.counts).map(([k, v]) => [`${k}_events`, v])),
    },
  };
}

export const nsysStatsTraceAdapter: ProducerAdapter = {
  ...nsysStatsTraceDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const { head, all } = await peek(input.chunks);
    const { header, line } = headerOf(head, input.displayName, "trace", TRACE_LABEL);
    const reader = new GpuTraceReader(header as TraceHeader, TRACE_LABEL, input.limits.maxEvents);
    await eachStreamedRecord(all, line, TRACE_LABEL, (cells, at) => reader.accept(cells, at));
    // Depth and per-track order need every event of a track: the rows are ordered before writing.
    for (const batch of eventBatches(reader.read, input.limits.maxArgsBytes))
      await input.sink.writeBatch(batch);
    return {
      ...describeTrace(reader.read),
      tables: { tracks: trackRows(reader.read) },
      streamed: ["trace_events"],
    };
  },
};

// --- summary reports ------------------------------------------------------------------

function summaryEvidence(
  header: SummaryHeader,
  reader: SummaryReader,
  writer: MeasurementWriter,
): Omit<NormalizedEvidence, "tables"> {
  const limitations: Limitation[] = [
    ...writer.limitations(),
    {
      code: "aggregates_only",
      message:
        `${header.report ?? "the report"} holds the report's own totals and statistics per ` +
        `name over the whole capture: no per-call events, times, threads or streams, so no ` +
        `timeline or distribution beyond these statistics can be rebuilt`,
    },
  ];
  if (header.report === null) {
    limitations.push({
      code: "report_ambiguous",
      message:
        `the header is that of ${header.candidates.join(" and of ")}, and the file name does ` +
        `not say which; the rows are scoped ${header.candidates.join("|")}`,
    });
  }
  return {
    adapter: nsysStatsSummaryDescription.name,
    adapterVersion: nsysStatsSummaryDescription.version,
    producer: "nsys",
    producerVersion: null,
    limitations,
    summary: {
      report: header.report ?? header.candidates.join("|"),
      names: reader.rows,
      columns: [...header.fields.values()].map((f) => f.header).join(","),
      measurements: writer.rows,
    },
  };
}

export const nsysStatsSummaryAdapter: ProducerAdapter = {
  ...nsysStatsSummaryDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const { head, all } = await peek(input.chunks);
    const { header, line } = headerOf(head, input.displayName, "summary", SUMMARY_LABEL);
    const tables = emptyTables();
    const writer = new MeasurementWriter(
      tables.measurements,
      SUMMARY_LABEL,
      input.limits.maxEvents,
    );
    const reader = new SummaryReader(header as SummaryHeader, SUMMARY_LABEL, writer);
    // A summary has one row per name: its measurements are few and handed over whole.
    await eachStreamedRecord(all, line, SUMMARY_LABEL, (cells, at) => reader.accept(cells, at));
    return {
      ...summaryEvidence(header as SummaryHeader, reader, writer),
      tables: { measurements: tables.measurements },
      streamed: [],
    };
  },
};
