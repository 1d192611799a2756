/**
 * coverage.py data files: the `.coverage` SQLite database (coverage.py 5.0 and later,
 * read through the untrusted-SQLite core) and the JSON data file of coverage.py 4.x
 * (a banner followed by JSON). Each executed line, and each arc when branches were
 * measured, becomes a `coverage_lines` row per file and context. A data file records only
 * what ran: which statements exist needs the source, so the run says so in a limitation
 * and totals come from a report (`coverage json`, `coverage xml`) instead.
 */
import type {
  ExtractInput,
  ProducerAdapter,
  StreamedEvidence,
  StreamExtractInput,
} from "../adapter.ts";
import { EVIDENCE_SCHEMAS } from "../../domain/evidence-schema.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { TableBuffer } from "../../domain/table-buffer.ts";
import { collectChunks } from "../common/collect-chunks.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { CoverageLineWriter } from "../coverage-lines/row-writer.ts";
import { isSqliteHeader } from "../sqlite/sqlite-header.ts";
import { coveragePyDescription } from "./description.ts";
import { readLegacyJson } from "./legacy-json.ts";
import { type MeasuredFile, sortMeasured, writeMeasuredFile } from "./measured-file.ts";
import { readCoverageSqlite } from "./sqlite-data.ts";

const NAME = coveragePyDescription.name;
const VERSION = coveragePyDescription.version;
const LABEL = "coverage.py data file";

const EXECUTED_ONLY: Limitation = {
  code: "executed_lines_only",
  message:
    "A coverage.py data file records the lines that ran, not which statements exist; lines " +
    "not executed and per-file totals need a report (coverage json or coverage xml)",
};

/** What a data file holds, read whole (SQLite needs every byte), before its rows are written. */
interface CoverageData {
  files: MeasuredFile[];
  hasArcs: boolean;
  producerVersion: string | null;
  limitations: Limitation[];
  /** The summary's fields that do not depend on the rows. */
  summary: Record<string, string | number | boolean | null>;
}

function readData(bytes: Uint8Array, limits: ExtractInput["limits"]): CoverageData {
  const limitations: Limitation[] = [EXECUTED_ONLY];
  if (isSqliteHeader(bytes)) {
    const data = readCoverageSqlite(bytes, LABEL, limits.maxEvents);
    if (data.schemaVersion !== 7) {
      limitations.push({
        code: "pre_release_schema",
        message:
          `coverage_schema ${data.schemaVersion} is a coverage.py 5.0 pre-release layout; it ` +
          `was read with that schema's tables`,
      });
    }
    return {
      files: data.files,
      hasArcs: data.hasArcs,
      producerVersion: data.producerVersion,
      limitations,
      summary: {
        container: "sqlite",
        coverage_schema: data.schemaVersion,
        has_arcs: data.hasArcs,
        measured_files: data.measuredFiles,
        contexts: data.contexts,
      },
    };
  }
  const data = readLegacyJson(bytes, limits.maxNestingDepth, LABEL);
  return {
    files: data.files,
    hasArcs: data.hasArcs,
    producerVersion: null,
    limitations,
    summary: {
      container: "legacy-json",
      has_arcs: data.hasArcs,
      measured_files: data.files.length,
    },
  };
}

function evidenceOf(
  data: CoverageData,
  out: CoverageLineWriter,
): Omit<NormalizedEvidence, "tables"> {
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: "coverage.py",
    producerVersion: data.producerVersion,
    limitations: data.limitations,
    summary: { ...data.summary, files_with_rows: out.files.size, coverage_lines: out.rows },
  };
}

/** Rows per coverage_lines batch handed to the sink. */
const BATCH_ROWS = 65536;

/**
 * Rows handed to the sink in batches: the file's bytes and its measured files
 * are held whole (SQLite reads from memory), the rows, many times their size, never are.
 */
export async function extractCoveragePyStream(
  input: StreamExtractInput,
): Promise<StreamedEvidence> {
  const data = readData(await collectChunks(input.chunks), input.limits);
  const out = new CoverageLineWriter(
    new TableBuffer(EVIDENCE_SCHEMAS.coverage_lines),
    LABEL,
    input.limits.maxEvents,
  );
  for (const file of sortMeasured(data.files)) {
    writeMeasuredFile(file, data.hasArcs, out);
    if (out.pending >= BATCH_ROWS) await input.sink.writeBatch(tableBufferToBatch(out.take()));
  }
  await input.sink.writeBatch(tableBufferToBatch(out.take()));
  return { ...evidenceOf(data, out), tables: {}, streamed: ["coverage_lines"] };
}

export const coveragePyAdapter: ProducerAdapter = {
  ...coveragePyDescription,
  extractStream: extractCoveragePyStream,
};
