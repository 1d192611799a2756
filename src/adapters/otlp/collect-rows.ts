/**
 * The whole-payload path of the OTLP adapters: every row kept in TableBuffers instead of flushed to
 * a sink.
 */
import type { EvidenceTableName } from "../../domain/evidence-schema.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { otlpEvidence } from "./otlp-evidence.ts";
import { OtlpRows } from "./otlp-rows.ts";

export const OTEL_TABLES: EvidenceTableName[] = [
  "otel_resources",
  "otel_scopes",
  "otel_spans",
  "otel_span_events",
  "otel_span_links",
];

export function collectRows(
  maxSpans: number,
  adapter: { name: string; version: string },
  read: (rows: OtlpRows) => void,
): NormalizedEvidence {
  const rows = new OtlpRows(
    { writeBatch: () => Promise.reject(new Error("the whole-payload path never flushes")) },
    maxSpans,
  );
  read(rows);
  const { tables: partial, streamed: _, ...rest } = otlpEvidence(rows, adapter);
  const tables = { ...emptyTables(), ...partial, ...rows.collected() };
  return { ...rest, tables };
}
