/**
 * The `otlp-json` adapter: OTLP/JSON trace export bodies (ExportTraceServiceRequest), as
 * otel_resources, otel_scopes, otel_spans, otel_span_events and otel_span_links.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { otlpJsonDescription } from "./description.ts";
import { otlpEvidence } from "./otlp-evidence.ts";
import { OtlpRows } from "./otlp-rows.ts";
import { scanOtlpJson } from "./scan-json.ts";

const SELF = { name: otlpJsonDescription.name, version: otlpJsonDescription.version };

export const otlpJsonAdapter: ProducerAdapter = {
  ...otlpJsonDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const rows = new OtlpRows(input.sink, input.limits.maxEvents);
    await scanOtlpJson(input.chunks, input.limits, rows);
    await rows.flush(true);
    return otlpEvidence(rows, SELF);
  },
};
