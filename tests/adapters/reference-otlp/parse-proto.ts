/**
 * Reference: OTLP protobuf through protobufjs, the whole request decoded, then the same
 * inputs built as the WASM scanner's reader builds.
 */
import { parseFailed } from "../../../src/adapters/json-guard.ts";
import {
  base64,
  doubleValue,
  type TypedAttribute,
  type TypedValue,
} from "../../../src/adapters/otlp/attributes.ts";
import { ExportTraceServiceRequest } from "./otlp-proto-schema.ts";
import type { OtlpRows } from "../../../src/adapters/otlp/otlp-rows.ts";
import { OTLP_PROTO_FORMAT } from "../../../src/adapters/otlp/proto-values.ts";

type Msg = Record<string, unknown>;
const list = (v: unknown): Msg[] => (Array.isArray(v) ? (v as Msg[]) : []);
const bytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(0));
const big = (v: unknown): bigint => (v === undefined || v === null ? 0n : BigInt(String(v)));
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

function anyValue(v: Msg | undefined): TypedValue {
  if (!v) return ["empty", null];
  if (v.string_value !== undefined) return ["string", v.string_value];
  if (v.bool_value !== undefined) return ["bool", v.bool_value];
  if (v.int_value !== undefined)
    return ["int", BigInt.asIntN(64, BigInt(String(v.int_value))).toString()];
  if (v.double_value !== undefined) return ["double", doubleValue(v.double_value as number)];
  if (v.array_value !== undefined)
    return ["array", list((v.array_value as Msg).values).map(anyValue)];
  if (v.kvlist_value !== undefined) return ["kvlist", attributes((v.kvlist_value as Msg).values)];
  if (v.bytes_value !== undefined) return ["bytes", base64(bytes(v.bytes_value))];
  return ["empty", null];
}

function attributes(v: unknown): TypedAttribute[] {
  return list(v).map((kv) => {
    const [type, value] = anyValue(kv.value as Msg | undefined);
    return [String(kv.key ?? ""), type, value];
  });
}

export function readOtlpProto(payload: Uint8Array, rows: OtlpRows): void {
  let request: Msg;
  try {
    request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(payload), {
      longs: String,
      oneofs: false,
    }) as Msg;
  } catch (error) {
    throw parseFailed(OTLP_PROTO_FORMAT, `invalid protobuf (${(error as Error).message})`);
  }
  list(request.resource_spans).forEach((rs, r) => {
    const resource = (rs.resource ?? {}) as Msg;
    list(rs.scope_spans).forEach((ss, s) => {
      const scope = (ss.scope ?? {}) as Msg;
      for (const span of list(ss.spans)) {
        const status = (span.status ?? {}) as Msg;
        const parent = bytesToHex(bytes(span.parent_span_id));
        rows.span({
          resourceIndex: r,
          scopeIndex: s,
          traceId: bytesToHex(bytes(span.trace_id)),
          spanId: bytesToHex(bytes(span.span_id)),
          parentSpanId: parent === "" ? null : parent,
          traceState: text(span.trace_state),
          name: String(span.name ?? ""),
          kind: Number(span.kind ?? 0),
          startUnixNano: big(span.start_time_unix_nano),
          endUnixNano: big(span.end_time_unix_nano),
          statusCode: Number(status.code ?? 0),
          statusMessage: text(status.message),
          flags: span.flags === undefined ? null : BigInt(span.flags as number),
          attributes: attributes(span.attributes),
          droppedAttributes: Number(span.dropped_attributes_count ?? 0),
          droppedEvents: Number(span.dropped_events_count ?? 0),
          droppedLinks: Number(span.dropped_links_count ?? 0),
          events: list(span.events).map((e) => ({
            timeUnixNano: big(e.time_unix_nano),
            name: String(e.name ?? ""),
            attributes: attributes(e.attributes),
            droppedAttributes: Number(e.dropped_attributes_count ?? 0),
          })),
          links: list(span.links).map((l) => ({
            traceId: bytesToHex(bytes(l.trace_id)),
            spanId: bytesToHex(bytes(l.span_id)),
            traceState: text(l.trace_state),
            flags: l.flags === undefined ? null : BigInt(l.flags as number),
            attributes: attributes(l.attributes),
            droppedAttributes: Number(l.dropped_attributes_count ?? 0),
          })),
        });
      }
      rows.scope({
        resourceIndex: r,
        scopeIndex: s,
        name: text(scope.name),
        version: text(scope.version),
        schemaUrl: text(ss.schema_url),
        attributes: attributes(scope.attributes),
        droppedAttributes: Number(scope.dropped_attributes_count ?? 0),
      });
    });
    rows.resource({
      resourceIndex: r,
      schemaUrl: text(rs.schema_url),
      attributes: attributes(resource.attributes),
      droppedAttributes: Number(resource.dropped_attributes_count ?? 0),
    });
  });
}

function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const b of bytes) hex += (b < 16 ? "0" : "") + b.toString(16);
  return hex;
}
