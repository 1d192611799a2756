/**
 * OTLP/JSON values (as JSON.parse gives them) → inputs. Shared by the JSON.parse path and
 * the WASM stream path, which rebuilds the same values from its records.
 */
import { expectationFailed } from "../json-guard.ts";
import { jsonAttributes, jsonInt } from "./attributes.ts";
import {
  enumNumber,
  SPAN_KINDS,
  STATUS_CODES,
  type EventInput,
  type LinkInput,
  type SpanInput,
} from "./span-input.ts";

export const OTLP_JSON_FORMAT = "OTLP/JSON trace";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {};
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const count = (v: unknown): number =>
  typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : 0;

/** Trace/span ids: hex (any case) → lowercase hex; protojson's base64 → hex; empty stays empty. */
export function jsonId(value: unknown, field: string): string {
  if (value === undefined || value === null || value === "") return "";
  if (typeof value !== "string")
    throw expectationFailed(OTLP_JSON_FORMAT, field, "a hex string", value);
  if (/^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0) return value.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return Buffer.from(value, "base64").toString("hex");
  throw expectationFailed(OTLP_JSON_FORMAT, field, "a hex string", value);
}

function unixNano(value: unknown, field: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (
    (typeof value === "string" && /^\d+$/.test(value)) ||
    (typeof value === "number" && Number.isInteger(value) && value >= 0)
  )
    return BigInt(value);
  throw expectationFailed(OTLP_JSON_FORMAT, field, "unsigned integer nanoseconds", value);
}

function flags(value: unknown): bigint | null {
  return value === undefined || value === null ? null : BigInt(jsonInt(value));
}

export function jsonEvent(value: unknown): EventInput {
  const e = obj(value);
  return {
    timeUnixNano: unixNano(e.timeUnixNano, "event timeUnixNano"),
    name: str(e.name) ?? "",
    attributes: jsonAttributes(e.attributes),
    droppedAttributes: count(e.droppedAttributesCount),
  };
}

export function jsonLink(value: unknown): LinkInput {
  const l = obj(value);
  return {
    traceId: jsonId(l.traceId, "link traceId"),
    spanId: jsonId(l.spanId, "link spanId"),
    traceState: str(l.traceState) || null,
    flags: flags(l.flags),
    attributes: jsonAttributes(l.attributes),
    droppedAttributes: count(l.droppedAttributesCount),
  };
}

export function jsonSpan(
  value: unknown,
  resourceIndex: number,
  scopeIndex: number,
  events: EventInput[],
  links: LinkInput[],
): SpanInput {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw expectationFailed(OTLP_JSON_FORMAT, "a span", "an object", value);
  const s = value as Obj;
  const status = obj(s.status);
  const parent = jsonId(s.parentSpanId, "parentSpanId");
  return {
    resourceIndex,
    scopeIndex,
    traceId: jsonId(s.traceId, "traceId"),
    spanId: jsonId(s.spanId, "spanId"),
    parentSpanId: parent === "" ? null : parent,
    traceState: str(s.traceState) || null,
    name: str(s.name) ?? "",
    kind: enumNumber(s.kind, SPAN_KINDS),
    startUnixNano: unixNano(s.startTimeUnixNano, "startTimeUnixNano"),
    endUnixNano: unixNano(s.endTimeUnixNano, "endTimeUnixNano"),
    statusCode: enumNumber(status.code, STATUS_CODES),
    statusMessage: str(status.message) || null,
    flags: flags(s.flags),
    attributes: jsonAttributes(s.attributes),
    droppedAttributes: count(s.droppedAttributesCount),
    droppedEvents: count(s.droppedEventsCount),
    droppedLinks: count(s.droppedLinksCount),
    events,
    links,
  };
}

export { obj, str, count };
