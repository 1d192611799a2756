/**
 * The WASM wire scanner's program for OTLP ExportTraceServiceRequest: which fields of
 * which messages become record slots (field numbers from opentelemetry-proto's
 * trace/v1/trace.proto and common/v1/common.proto).
 */
import { P_BYTES, ProtoProgram } from "../wasm/proto-program.ts";

export const R_ROOT = 0,
  R_RS = 1,
  R_SS = 2,
  R_SPAN = 3,
  R_EVENT = 4,
  R_LINK = 5,
  R_KV = 6;

/**
 * Span, event and link strings are kept as bytes (copied into their columns, never
 * interned: span names and messages can be unique per span); resource and scope strings
 * are interned (few).
 */
export function otlpProgram(): ProtoProgram {
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
  p.value(span, 3, R_SPAN, 2, P_BYTES);
  p.value(span, 4, R_SPAN, 3, P_BYTES);
  p.value(span, 5, R_SPAN, 4, P_BYTES);
  p.value(span, 6, R_SPAN, 5);
  p.value(span, 7, R_SPAN, 6);
  p.value(span, 8, R_SPAN, 7);
  kv(span, 9);
  p.value(span, 10, R_SPAN, 8);
  p.value(span, 12, R_SPAN, 9);
  p.value(span, 14, R_SPAN, 10);
  const status = p.child(span, 15, p.message());
  p.value(status, 2, R_SPAN, 11, P_BYTES);
  p.value(status, 3, R_SPAN, 12);
  p.value(span, 16, R_SPAN, 13);
  const event = p.child(span, 11, p.message({ record: R_EVENT }));
  p.value(event, 1, R_EVENT, 0);
  p.value(event, 2, R_EVENT, 1, P_BYTES);
  kv(event, 3);
  p.value(event, 4, R_EVENT, 2);
  const link = p.child(span, 13, p.message({ record: R_LINK }));
  p.value(link, 1, R_LINK, 0, P_BYTES);
  p.value(link, 2, R_LINK, 1, P_BYTES);
  p.value(link, 3, R_LINK, 2, P_BYTES);
  kv(link, 4);
  p.value(link, 5, R_LINK, 3);
  p.value(link, 6, R_LINK, 4);
  p.whole(R_EVENT).whole(R_LINK).whole(R_KV);
  return p;
}
