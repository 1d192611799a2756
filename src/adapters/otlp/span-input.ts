/**
 * One OTLP resource, scope, span, event or link, decoded by either front end (OTLP/JSON
 * through the WASM JSON scanner or JSON.parse; protobuf through the WASM wire scanner),
 * in one shape, so rows come out identical from both encodings.
 */
import type { TypedAttribute } from "./attributes.ts";

export interface ResourceInput {
  resourceIndex: number;
  schemaUrl: string | null;
  attributes: TypedAttribute[];
  /**
   * The attributes already in canonical JSON (the protobuf stream path writes them so); replaces
   * `attributes`.
   */
  attributesJson?: string;
  droppedAttributes: number;
}

export interface ScopeInput {
  resourceIndex: number;
  scopeIndex: number;
  name: string | null;
  version: string | null;
  schemaUrl: string | null;
  attributes: TypedAttribute[];
  /** As in ResourceInput. */
  attributesJson?: string;
  droppedAttributes: number;
}

export interface EventInput {
  timeUnixNano: bigint;
  name: string;
  attributes: TypedAttribute[];
  droppedAttributes: number;
}

export interface LinkInput {
  traceId: string;
  spanId: string;
  traceState: string | null;
  flags: bigint | null;
  attributes: TypedAttribute[];
  droppedAttributes: number;
}

export interface SpanInput {
  resourceIndex: number;
  scopeIndex: number;
  traceId: string;
  spanId: string;
  /** null for a root span (empty parent id). */
  parentSpanId: string | null;
  traceState: string | null;
  name: string;
  kind: number;
  startUnixNano: bigint;
  endUnixNano: bigint;
  statusCode: number;
  statusMessage: string | null;
  flags: bigint | null;
  attributes: TypedAttribute[];
  droppedAttributes: number;
  droppedEvents: number;
  droppedLinks: number;
  events: EventInput[];
  links: LinkInput[];
}

export const SPAN_KINDS = [
  "SPAN_KIND_UNSPECIFIED",
  "SPAN_KIND_INTERNAL",
  "SPAN_KIND_SERVER",
  "SPAN_KIND_CLIENT",
  "SPAN_KIND_PRODUCER",
  "SPAN_KIND_CONSUMER",
];
export const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

/** Enum number from a JSON number or an enum name (protojson accepts both). */
export function enumNumber(value: unknown, names: readonly string[]): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string") {
    const at = names.indexOf(value);
    if (at >= 0) return at;
    if (/^\d+$/.test(value)) return Number(value);
  }
  return 0;
}

export function enumName(value: number, names: readonly string[], prefix: string): string {
  return names[value] ?? `${prefix}${value}`;
}
