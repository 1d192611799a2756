/**
 * OTLP protobuf (ExportTraceServiceRequest) through the WASM wire scanner. ResourceSpans
 * and ScopeSpans are streamed into (a request may hold all its spans in one of them) and
 * announced when they open, so each span knows its ordinals; attributes arrive as
 * KeyValue bytes; events, links and attributes precede their owner.
 *
 * Span, event and link rows are built by SpanStream (span-stream.ts) and handed to the sink
 * in batches; resources and scopes go to OtlpRows as they close. Values equal those of the
 * tests' reference decoder (protobufjs) row for row.
 */
import type { EvidenceSink } from "../adapter.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import type { OtlpRows } from "./otlp-rows.ts";
import { otlpProgram, R_EVENT, R_KV, R_LINK, R_RS, R_SPAN, R_SS } from "./otlp-proto-program.ts";
import { OTLP_PROTO_FORMAT } from "./proto-values.ts";
import { SpanStream } from "./span-stream.ts";

/** The request bytes in chunks; spans, events and links go to `sink` as their batches fill. */
export async function scanOtlpProto(
  chunks: AsyncIterable<Uint8Array>,
  maxDepth: number,
  rows: OtlpRows,
  sink: EvidenceSink,
  maxSpans: number,
): Promise<void> {
  const scanner = await ProtoScanner.open(otlpProgram(), { format: OTLP_PROTO_FORMAT, maxDepth });
  const { out, onBatch } = otlpProtoReader(rows, maxSpans);
  for await (const chunk of chunks) {
    scanner.push(chunk, onBatch);
    if (out.due) await out.flush(sink, false);
  }
  scanner.finish(onBatch);
  await out.flush(sink, true);
}

export function otlpProtoReader(
  rows: OtlpRows,
  maxSpans: number,
): { out: SpanStream; onBatch: (b: ProtoBatch) => void } {
  const out = new SpanStream(rows, maxSpans);
  // Ordinals of the open ResourceSpans and ScopeSpans, dropped when they close.
  let resources = 0;
  const resourceOf = new Map<number, number>();
  const scopesIn = new Map<number, number>();
  const scopeOf = new Map<number, [number, number]>();
  const str = (b: ProtoBatch, r: number, s: number): string | null => b.string(r, s) || null;
  const onBatch = (b: ProtoBatch): void => {
    b.prepareKeyValues(R_KV, 0);
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (b.announced(r)) {
        if (type === R_RS) resourceOf.set(b.serial(r), resources++);
        else if (type === R_SS) {
          const resource = resourceOf.get(b.parent(r)) ?? 0;
          const index = scopesIn.get(resource) ?? 0;
          scopesIn.set(resource, index + 1);
          scopeOf.set(b.serial(r), [resource, index]);
        }
        continue;
      }
      switch (type) {
        case R_KV:
          out.keyValue(b, r);
          break;
        case R_EVENT:
          out.event(b, r);
          break;
        case R_LINK:
          out.link(b, r);
          break;
        case R_SPAN: {
          const [resource, scope] = scopeOf.get(b.parent(r)) ?? [0, 0];
          out.span(b, r, resource, scope);
          break;
        }
        case R_SS: {
          const serial = b.serial(r);
          const [resource, scope] = scopeOf.get(serial) ?? [0, 0];
          scopeOf.delete(serial);
          rows.scope({
            resourceIndex: resource,
            scopeIndex: scope,
            name: str(b, r, 0),
            version: str(b, r, 1),
            schemaUrl: str(b, r, 3),
            attributes: [],
            attributesJson: out.attributesJson(serial),
            droppedAttributes: b.low(r, 2),
          });
          break;
        }
        case R_RS: {
          const serial = b.serial(r);
          const resource = resourceOf.get(serial) ?? 0;
          resourceOf.delete(serial);
          scopesIn.delete(resource);
          rows.resource({
            resourceIndex: resource,
            schemaUrl: str(b, r, 1),
            attributes: [],
            attributesJson: out.attributesJson(serial),
            droppedAttributes: b.low(r, 0),
          });
          break;
        }
      }
    }
  };
  return { out, onBatch };
}
