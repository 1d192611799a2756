/**
 * Recognising OTLP trace requests from their head: a JSON body's `resourceSpans`, or a
 * protobuf request (alone or length-prefixed, length-prefixed.ts) opening with a
 * ResourceSpans.
 */
import type { DetectInput } from "../adapter.ts";
import { fieldsWithin, sniffFirstMessage } from "../wasm/proto-sniff.ts";

/** Bytes of the big-endian length the Collector's file exporter writes before each request. */
export const PREFIX_BYTES = 4;
/** The first body byte of a request: field 1 (resource_spans), length-delimited. */
const RESOURCE_SPANS_TAG = 0x0a;
/** ResourceSpans: resource (1), scope_spans (2), schema_url (3), all length-delimited. */
const RESOURCE_SPANS = { 1: 2, 2: 2, 3: 2, 1000: 2 };

/**
 * Whether a payload starting with `head` is length-prefixed requests (an empty first body counts).
 */
export function isLengthPrefixed(head: Uint8Array): boolean {
  if (head.length < PREFIX_BYTES || head[0]! >= 0x08) return false;
  const length = new DataView(head.buffer, head.byteOffset, PREFIX_BYTES).getUint32(0);
  if (length === 0) return head.length === PREFIX_BYTES || head[PREFIX_BYTES]! < 0x08;
  return head.length > PREFIX_BYTES && head[PREFIX_BYTES] === RESOURCE_SPANS_TAG;
}

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

export function detectOtlpProto({ headBytes, displayName }: DetectInput): number {
  if (!headBytes) return 0;
  const framed = isLengthPrefixed(headBytes);
  const first = sniffFirstMessage(framed ? headBytes.subarray(4) : headBytes);
  const named =
    /\.(pb|otlp|protobuf|binpb)(\.gz)?$/i.test(displayName) || /otlp|trace/i.test(displayName);
  if (first?.outer.number !== 1 || !fieldsWithin(first.inner, RESOURCE_SPANS)) return 0;
  // A ResourceSpans starts with its Resource or its ScopeSpans; pprof and Perfetto use other fields
  // there.
  return named ? 0.7 : 0.45;
}
