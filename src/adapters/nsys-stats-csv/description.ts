/**
 * What the `nsys-stats-trace-csv` and `nsys-stats-summary-csv` adapters declare, and their
 * detection (the report's header row), without their parsers.
 */
import type { AdapterDescription, DetectInput } from "../adapter.ts";
import { findReportHeader } from "./report-header.ts";

function detectKind(kind: "trace" | "summary") {
  return ({ head, displayName }: DetectInput): number => {
    const found = findReportHeader(head, displayName);
    return found?.header.kind === kind ? 0.9 : 0;
  };
}

export const nsysStatsTraceDescription: AdapterDescription = {
  name: "nsys-stats-trace-csv",
  version: "1.0.0",
  tables: ["trace_events", "tracks"],
  artifactKind: "execution_trace",
  mediaType: "text/csv",
  detect: detectKind("trace"),
};

export const nsysStatsSummaryDescription: AdapterDescription = {
  name: "nsys-stats-summary-csv",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "text/csv",
  detect: detectKind("summary"),
};
