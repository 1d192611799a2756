/**
 * The `otlp-json` adapter: OTLP/JSON trace export bodies (ExportTraceServiceRequest), as
 * otel_resources, otel_scopes, otel_spans, otel_span_events and otel_span_links.
 */
import type {
  DetectInput,
  ProducerAdapter,
  StreamedEvidence,
  StreamExtractInput,
} from "../adapter.ts";
import { OTEL_TABLES, otlpEvidence } from "./otlp-evidence.ts";
import { OtlpRows } from "./otlp-rows.ts";
import { scanOtlpJson } from "./scan-json.ts";

const SELF = { name: "otlp-json", version: "1.0.0" };

export function detectOtlpJson({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  if (
    /"resourceSpans"\s*:\s*\[/.test(text) &&
    /"(scopeSpans|instrumentationLibrarySpans|resource)"\s*:/.test(text)
  )
    return 0.95;
  return /"resourceSpans"\s*:/.test(text) ? 0.6 : 0;
}

export const otlpJsonAdapter: ProducerAdapter = {
  ...SELF,
  tables: OTEL_TABLES,
  artifactKind: "otlp_trace",
  mediaType: "application/json",
  detect: detectOtlpJson,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const rows = new OtlpRows(input.sink, input.limits.maxEvents);
    await scanOtlpJson(input.chunks, input.limits, rows);
    await rows.flush(true);
    return otlpEvidence(rows, SELF);
  },
};
