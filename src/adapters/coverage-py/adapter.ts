/**
 * coverage.py data files: the `.coverage` SQLite database (coverage.py 5.0 and later,
 * read through the untrusted-SQLite core) and the JSON data file of coverage.py 4.x
 * (a banner followed by JSON). Each executed line, and each arc when branches were
 * measured, becomes a `coverage_lines` row per file and context. A data file records only
 * what ran: which statements exist needs the source, so the run says so in a limitation
 * and totals come from a report (`coverage json`, `coverage xml`) instead.
 */
import type { DetectInput, ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { CoverageLineWriter } from "../coverage-lines/row-writer.ts";
import { isSqliteHeader } from "../sqlite/untrusted-database.ts";
import { LEGACY_BANNER, readLegacyJson } from "./legacy-json.ts";
import { writeMeasured } from "./measured-file.ts";
import { readCoverageSqlite } from "./sqlite-data.ts";

const NAME = "coverage-py";
const VERSION = "1.0.0";
const LABEL = "coverage.py data file";

export function detectCoveragePy({ head }: DetectInput): number {
  if (head.startsWith(LEGACY_BANNER)) return 0.99;
  // The schema's CREATE statements sit on the first page, well inside the head.
  if (isSqliteHeader(head) && /CREATE TABLE coverage_schema\b/.test(head)) return 0.95;
  return 0;
}

const EXECUTED_ONLY: Limitation = {
  code: "executed_lines_only",
  message: "A coverage.py data file records the lines that ran, not which statements exist; lines not executed and per-file totals need a report (coverage json or coverage xml)",
};

export function extractCoveragePy(input: ExtractInput): NormalizedEvidence {
  const tables = emptyTables();
  const out = new CoverageLineWriter(tables.coverage_lines, LABEL, input.limits.maxEvents);
  const limitations: Limitation[] = [EXECUTED_ONLY];
  if (isSqliteHeader(input.bytes)) {
    const data = readCoverageSqlite(input.bytes, LABEL, input.limits.maxEvents);
    writeMeasured(data.files, data.hasArcs, out);
    if (data.schemaVersion !== 7) {
      limitations.push({ code: "pre_release_schema", message: `coverage_schema ${data.schemaVersion} is a coverage.py 5.0 pre-release layout; it was read with that schema's tables` });
    }
    return {
      adapter: NAME, adapterVersion: VERSION, producer: "coverage.py", producerVersion: data.producerVersion, tables, limitations,
      summary: {
        container: "sqlite", coverage_schema: data.schemaVersion, has_arcs: data.hasArcs, measured_files: data.measuredFiles,
        contexts: data.contexts, files_with_rows: out.files.size, coverage_lines: out.rows,
      },
    };
  }
  const data = readLegacyJson(input.bytes, input.limits.maxNestingDepth, LABEL);
  writeMeasured(data.files, data.hasArcs, out);
  return {
    adapter: NAME, adapterVersion: VERSION, producer: "coverage.py", producerVersion: null, tables, limitations,
    summary: { container: "legacy-json", has_arcs: data.hasArcs, measured_files: data.files.length, files_with_rows: out.files.size, coverage_lines: out.rows },
  };
}

export const coveragePyAdapter: ProducerAdapter = {
  name: NAME,
  version: VERSION,
  artifactKind: "execution_coverage",
  mediaType: "application/vnd.sqlite3",
  tables: ["coverage_lines"],
  detect: detectCoveragePy,
  extract: extractCoveragePy,
};
