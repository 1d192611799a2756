/** The evidence of an OTLP import (either encoding): tables, limitations, summary. */
import type { StreamedEvidence } from "../adapter.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { OtlpRows } from "./otlp-rows.ts";

export function otlpEvidence(
  rows: OtlpRows,
  adapter: { name: string; version: string },
): StreamedEvidence {
  const limitations: Limitation[] = [];
  if (rows.spanCount === 0)
    limitations.push({ code: "no_spans", message: "The request carries no spans" });
  if (rows.negativeDurations > 0)
    limitations.push({
      code: "negative_durations",
      message:
        "Spans that end before they start (clock skew or bad exporter); kept with a negative " +
        "duration",
      count: rows.negativeDurations,
    });
  limitations.push({
    code: "observations_only",
    message:
      "Spans are what the exporter reported; parentage and timing are observations, not " +
      "causal claims",
  });
  return {
    adapter: adapter.name,
    adapterVersion: adapter.version,
    producer: null,
    producerVersion: null,
    tables: { otel_resources: rows.resources, otel_scopes: rows.scopes },
    streamed: OtlpRows.STREAMED,
    limitations,
    summary: {
      resources: rows.resources.rowCount,
      scopes: rows.scopes.rowCount,
      spans: rows.spanCount,
      span_events: rows.eventCount,
      span_links: rows.linkCount,
      traces: rows.traceIds.size,
    },
  };
}
