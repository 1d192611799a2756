/**
 * OTLP inputs → otel_* rows. Resources and scopes are few and kept whole; spans, events
 * and links go to the sink in batches as they are decoded, so memory does not grow with
 * the number of spans.
 */
import type { EvidenceSink } from "../adapter.ts";
import { EVIDENCE_SCHEMAS, type EvidenceTableName } from "../../domain/evidence-schema.ts";
import { TableBuffer } from "../../domain/table-buffer.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";

const INT64_LIMIT = 2n ** 63n;
import { canonicalAttributes } from "./attributes.ts";
import {
  enumName,
  SPAN_KINDS,
  STATUS_CODES,
  type ResourceInput,
  type ScopeInput,
  type SpanInput,
} from "./span-input.ts";

const BATCH_ROWS = 16384;

export class OtlpRows {
  readonly resources = new TableBuffer(EVIDENCE_SCHEMAS.otel_resources);
  readonly scopes = new TableBuffer(EVIDENCE_SCHEMAS.otel_scopes);
  private spans = new TableBuffer(EVIDENCE_SCHEMAS.otel_spans);
  private events = new TableBuffer(EVIDENCE_SCHEMAS.otel_span_events);
  private links = new TableBuffer(EVIDENCE_SCHEMAS.otel_span_links);
  spanCount = 0;
  eventCount = 0;
  linkCount = 0;
  negativeDurations = 0;
  traceIds = new Set<string>();

  constructor(
    private readonly sink: EvidenceSink,
    private readonly maxSpans: number,
  ) {}

  resource(r: ResourceInput): void {
    this.resources.append({
      resource_index: r.resourceIndex,
      schema_url: r.schemaUrl,
      attributes_json: r.attributesJson ?? canonicalAttributes(r.attributes),
      dropped_attributes_count: r.droppedAttributes,
    });
  }

  scope(s: ScopeInput): void {
    this.scopes.append({
      resource_index: s.resourceIndex,
      scope_index: s.scopeIndex,
      name: s.name,
      version: s.version,
      schema_url: s.schemaUrl,
      attributes_json: s.attributesJson ?? canonicalAttributes(s.attributes),
      dropped_attributes_count: s.droppedAttributes,
    });
  }

  /** Appends a span with its events and links; true when a batch is due (call `flush`). */
  span(s: SpanInput): boolean {
    // OTLP times are fixed64 (unsigned); the columns are int64, so 2^63 and above cannot be stored.
    for (const [field, value] of [
      ["start_time_unix_nano", s.startUnixNano],
      ["end_time_unix_nano", s.endUnixNano],
      ...s.events.map((e) => ["event time_unix_nano", e.timeUnixNano] as const),
    ] as const) {
      if (value >= INT64_LIMIT)
        throw parseFailed(
          "OTLP trace",
          `a span's ${field} (${value}) is beyond the int64 range of unix nanoseconds`,
        );
    }
    const index = this.spanCount++;
    if (this.spanCount > this.maxSpans)
      throw tooLarge("OTLP trace", "spans", this.spanCount, this.maxSpans);
    const duration = s.endUnixNano - s.startUnixNano;
    if (duration < 0n) this.negativeDurations++;
    if (this.traceIds.size < 100_000) this.traceIds.add(s.traceId);
    this.spans.append({
      span_index: index,
      resource_index: s.resourceIndex,
      scope_index: s.scopeIndex,
      trace_id: s.traceId,
      span_id: s.spanId,
      parent_span_id: s.parentSpanId,
      trace_state: s.traceState,
      name: s.name,
      kind: enumName(s.kind, SPAN_KINDS, "SPAN_KIND_"),
      start_unix_nano: s.startUnixNano,
      end_unix_nano: s.endUnixNano,
      duration_ns: duration,
      status_code: enumName(s.statusCode, STATUS_CODES, "STATUS_CODE_"),
      status_message: s.statusMessage,
      flags: s.flags,
      attributes_json: canonicalAttributes(s.attributes),
      dropped_attributes_count: s.droppedAttributes,
      dropped_events_count: s.droppedEvents,
      dropped_links_count: s.droppedLinks,
    });
    s.events.forEach((e, i) => {
      this.eventCount++;
      this.events.append({
        span_index: index,
        event_index: i,
        trace_id: s.traceId,
        span_id: s.spanId,
        time_unix_nano: e.timeUnixNano,
        name: e.name,
        attributes_json: canonicalAttributes(e.attributes),
        dropped_attributes_count: e.droppedAttributes,
      });
    });
    s.links.forEach((l, i) => {
      this.linkCount++;
      this.links.append({
        span_index: index,
        link_index: i,
        trace_id: s.traceId,
        span_id: s.spanId,
        linked_trace_id: l.traceId,
        linked_span_id: l.spanId,
        trace_state: l.traceState,
        flags: l.flags,
        attributes_json: canonicalAttributes(l.attributes),
        dropped_attributes_count: l.droppedAttributes,
      });
    });
    return this.spans.rowCount >= BATCH_ROWS;
  }

  /** Hands pending rows to the sink; at the end every streamed table gets at least one batch. */
  async flush(final: boolean): Promise<void> {
    for (const name of ["spans", "events", "links"] as const) {
      const buffer = this[name];
      if (buffer.rowCount === 0 && !final) continue;
      // Swapped before awaiting: rows appended meanwhile go to the next batch.
      this[name] = new TableBuffer(buffer.schema);
      await this.sink.writeBatch(tableBufferToBatch(buffer));
    }
  }

  static readonly STREAMED: EvidenceTableName[] = [
    "otel_spans",
    "otel_span_events",
    "otel_span_links",
  ];
}
