/**
 * OTLP protobuf (ExportTraceServiceRequest) through the WASM wire scanner. ResourceSpans
 * and ScopeSpans are streamed into (a request may hold all its spans in one of them) and
 * announced when they open, so each span knows its ordinals; attributes arrive as
 * KeyValue bytes decoded here; events, links and attributes precede their owner.
 */
import { bytesToHex, type TypedAttribute } from "./attributes.ts";
import { PT_FIXED32, type ProtoBatch } from "../wasm/proto-batch.ts";
import { P_BYTES, P_SCALAR, ProtoProgram } from "../wasm/proto-program.ts";
import { ProtoScanner } from "../wasm/proto-scanner.ts";
import type { OtlpRows } from "./otlp-rows.ts";
import { OTLP_PROTO_FORMAT, protoKeyValue } from "./proto-values.ts";
import type { EventInput, LinkInput } from "./span-input.ts";

const R_ROOT = 0, R_RS = 1, R_SS = 2, R_SPAN = 3, R_EVENT = 4, R_LINK = 5, R_KV = 6;

function otlpProgram(): ProtoProgram {
  const p = new ProtoProgram(14);
  p.record(0, R_ROOT).whole(R_ROOT);
  const kv = (parent: number, field: number) => p.value(parent, field, R_KV, 0, P_BYTES, 0, R_KV);
  const rs = p.child(0, 1, p.message({ record: R_RS }));
  p.announce(R_RS).whole(R_RS);
  const resource = p.child(rs, 1, p.message());
  kv(resource, 1);
  p.value(resource, 2, R_RS, 0);
  p.value(rs, 3, R_RS, 1);
  const ss = p.child(rs, 2, p.message({ record: R_SS }));
  p.announce(R_SS).whole(R_SS);
  const scope = p.child(ss, 1, p.message());
  p.value(scope, 1, R_SS, 0);
  p.value(scope, 2, R_SS, 1);
  kv(scope, 3);
  p.value(scope, 4, R_SS, 2);
  p.value(ss, 3, R_SS, 3);
  const span = p.child(ss, 2, p.message({ record: R_SPAN }));
  p.whole(R_SPAN);
  p.value(span, 1, R_SPAN, 0, P_BYTES);
  p.value(span, 2, R_SPAN, 1, P_BYTES);
  p.value(span, 3, R_SPAN, 2);
  p.value(span, 4, R_SPAN, 3, P_BYTES);
  p.value(span, 5, R_SPAN, 4);
  p.value(span, 6, R_SPAN, 5);
  p.value(span, 7, R_SPAN, 6);
  p.value(span, 8, R_SPAN, 7);
  kv(span, 9);
  p.value(span, 10, R_SPAN, 8);
  p.value(span, 12, R_SPAN, 9);
  p.value(span, 14, R_SPAN, 10);
  const status = p.child(span, 15, p.message());
  p.value(status, 2, R_SPAN, 11);
  p.value(status, 3, R_SPAN, 12);
  p.value(span, 16, R_SPAN, 13);
  const event = p.child(span, 11, p.message({ record: R_EVENT }));
  p.value(event, 1, R_EVENT, 0);
  p.value(event, 2, R_EVENT, 1);
  kv(event, 3);
  p.value(event, 4, R_EVENT, 2);
  const link = p.child(span, 13, p.message({ record: R_LINK }));
  p.value(link, 1, R_LINK, 0, P_BYTES);
  p.value(link, 2, R_LINK, 1, P_BYTES);
  p.value(link, 3, R_LINK, 2);
  kv(link, 4);
  p.value(link, 5, R_LINK, 3);
  p.value(link, 6, R_LINK, 4);
  p.whole(R_EVENT).whole(R_LINK).whole(R_KV);
  return p;
}

/** Pending children (attributes, events, links) keyed by their owner's serial. */
class Pending<T> {
  private readonly byOwner = new Map<number, T[]>();
  add(owner: number, item: T): void {
    const list = this.byOwner.get(owner);
    if (list) list.push(item);
    else this.byOwner.set(owner, [item]);
  }
  take(owner: number): T[] {
    const list = this.byOwner.get(owner) ?? [];
    this.byOwner.delete(owner);
    return list;
  }
}

export async function scanOtlpProto(chunks: AsyncIterable<Uint8Array>, maxDepth: number, rows: OtlpRows): Promise<void> {
  const scanner = await ProtoScanner.open(otlpProgram(), { format: OTLP_PROTO_FORMAT, maxDepth });
  const resourceOf = new Map<number, number>();
  const scopeOf = new Map<number, [number, number]>();
  const scopesIn = new Map<number, number>();
  const attributes = new Pending<TypedAttribute>();
  const events = new Pending<EventInput>();
  const links = new Pending<LinkInput>();
  let flushDue = false;
  const str = (b: ProtoBatch, r: number, s: number): string | null => b.string(r, s) || null;
  const onBatch = (b: ProtoBatch): void => {
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (b.announced(r)) {
        if (type === R_RS) resourceOf.set(b.serial(r), resourceOf.size);
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
          attributes.add(b.parent(r), protoKeyValue(b.bytes(r, 0)));
          break;
        case R_EVENT:
          events.add(b.parent(r), { timeUnixNano: b.ubig(r, 0), name: b.string(r, 1) ?? "", attributes: attributes.take(b.serial(r)), droppedAttributes: b.num(r, 2) });
          break;
        case R_LINK:
          links.add(b.parent(r), {
            traceId: bytesToHex(b.bytes(r, 0)), spanId: bytesToHex(b.bytes(r, 1)), traceState: str(b, r, 2),
            flags: b.kind(r, 4) === PT_FIXED32 ? b.ubig(r, 4) : null, attributes: attributes.take(b.serial(r)), droppedAttributes: b.num(r, 3),
          });
          break;
        case R_SPAN: {
          const [resource, scope] = scopeOf.get(b.parent(r)) ?? [0, 0];
          const parent = bytesToHex(b.bytes(r, 3));
          const due = rows.span({
            resourceIndex: resource, scopeIndex: scope, traceId: bytesToHex(b.bytes(r, 0)), spanId: bytesToHex(b.bytes(r, 1)),
            parentSpanId: parent === "" ? null : parent, traceState: str(b, r, 2), name: b.string(r, 4) ?? "", kind: b.num(r, 5),
            startUnixNano: b.ubig(r, 6), endUnixNano: b.ubig(r, 7), statusCode: b.num(r, 12), statusMessage: str(b, r, 11),
            flags: b.kind(r, 13) === PT_FIXED32 ? b.ubig(r, 13) : null, attributes: attributes.take(b.serial(r)),
            droppedAttributes: b.num(r, 8), droppedEvents: b.num(r, 9), droppedLinks: b.num(r, 10),
            events: events.take(b.serial(r)), links: links.take(b.serial(r)),
          });
          if (due) flushDue = true;
          break;
        }
        case R_SS: {
          const [resource, scope] = scopeOf.get(b.serial(r)) ?? [0, 0];
          rows.scope({
            resourceIndex: resource, scopeIndex: scope, name: str(b, r, 0), version: str(b, r, 1), schemaUrl: str(b, r, 3),
            attributes: attributes.take(b.serial(r)), droppedAttributes: b.num(r, 2),
          });
          break;
        }
        case R_RS:
          rows.resource({ resourceIndex: resourceOf.get(b.serial(r)) ?? 0, schemaUrl: str(b, r, 1), attributes: attributes.take(b.serial(r)), droppedAttributes: b.num(r, 0) });
          break;
      }
    }
  };
  for await (const chunk of chunks) {
    scanner.push(chunk, onBatch);
    if (flushDue) await rows.flush(false);
    flushDue = false;
  }
  scanner.finish(onBatch);
}
