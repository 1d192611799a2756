/**
 * What a Chrome trace says about itself besides its events: the top-level value's type,
 * `traceEvents`' type, the legacy `samples` array's length and the keys that name the
 * producer. Read from the container record, which the scanner completes when the
 * top-level value closes.
 */
import { TAG_ARRAY, TAG_JSON, TAG_OBJECT, type JsonBatch } from "../wasm/json-batch.ts";
import {
  C_METADATA,
  C_PRESENCE_KEYS,
  C_SAMPLES,
  C_TRACE_EVENTS,
  cPresence,
} from "./trace-program.ts";

export interface TraceDocumentFields {
  topKind: number;
  traceEventsKind: number;
  stackSamples: number;
  container: Record<string, unknown>;
}

export class TraceDocument implements TraceDocumentFields {
  topKind = 0;
  traceEventsKind = 0;
  stackSamples = 0;
  container: Record<string, unknown> = {};

  /** Reads a container record (the announcement when it opens, then the whole record). */
  observe(b: JsonBatch, r: number): void {
    this.topKind = b.selfKind(r);
    if (this.topKind !== TAG_OBJECT) return;
    this.traceEventsKind = b.kind(r, C_TRACE_EVENTS);
    if (b.kind(r, C_SAMPLES) === TAG_ARRAY) this.stackSamples = b.int(r, C_SAMPLES);
    this.container = b.kind(r, C_METADATA) === TAG_JSON ? { metadata: b.value(r, C_METADATA) } : {};
    for (const key of C_PRESENCE_KEYS)
      if (b.kind(r, cPresence(key)) !== 0) this.container[key] = true;
  }

  fields(): TraceDocumentFields {
    const { topKind, traceEventsKind, stackSamples, container } = this;
    return { topKind, traceEventsKind, stackSamples, container };
  }

  assign(fields: TraceDocumentFields): void {
    Object.assign(this, fields);
  }
}
