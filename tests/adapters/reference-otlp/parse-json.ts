/**
 * Reference: OTLP/JSON through JSON.parse. Accepts an ExportTraceServiceRequest
 * body (`resourceSpans`), a Jaeger api_v3 response wrapping one (`result.resourceSpans`),
 * the pre-1.0 names (`instrumentationLibrarySpans`, `instrumentationLibrary`), and JSON
 * Lines of such bodies.
 */
import {
  expectationFailed,
  isPlainObject,
  parseJsonPayload,
} from "../../../src/adapters/json-guard.ts";
import type { AdapterLimits } from "../../../src/adapters/adapter.ts";
import { jsonAttributes } from "../../../src/adapters/otlp/attributes.ts";
import {
  count,
  jsonEvent,
  jsonLink,
  jsonSpan,
  obj,
  OTLP_JSON_FORMAT,
  str,
} from "../../../src/adapters/otlp/json-values.ts";
import type { OtlpRows } from "../../../src/adapters/otlp/otlp-rows.ts";

export function readOtlpJson(bytes: Uint8Array, limits: AdapterLimits, rows: OtlpRows): void {
  let resourceBase = 0;
  for (const value of requestsOf(bytes, limits)) {
    if (!isPlainObject(value))
      throw expectationFailed(OTLP_JSON_FORMAT, "the top-level value", "an object", value);
    const resourceSpans = value.resourceSpans ?? obj(value.result).resourceSpans;
    if (!Array.isArray(resourceSpans))
      throw expectationFailed(OTLP_JSON_FORMAT, "resourceSpans", "an array", resourceSpans);
    readResourceSpans(resourceSpans, resourceBase, rows);
    resourceBase += resourceSpans.length;
  }
}

/**
 * The request bodies: one JSON document, or JSON Lines (one request per line, as the
 * OpenTelemetry Collector's file exporter writes) when the whole is not one document.
 */
function requestsOf(bytes: Uint8Array, limits: AdapterLimits): unknown[] {
  try {
    return [parseJsonPayload(bytes, limits.maxNestingDepth, OTLP_JSON_FORMAT).value];
  } catch (whole) {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      const line = bytes.subarray(start, i);
      if (!isBlank(line)) lines.push(line);
      start = i + 1;
    }
    if (lines.length < 2) throw whole;
    try {
      return lines.map(
        (line) => parseJsonPayload(line, limits.maxNestingDepth, OTLP_JSON_FORMAT).value,
      );
    } catch {
      throw whole;
    }
  }
}

/** Only JSON whitespace (a blank line, or the \r of a CRLF ending). */
function isBlank(line: Uint8Array): boolean {
  return line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);
}

function readResourceSpans(resourceSpans: unknown[], base: number, rows: OtlpRows): void {
  for (let k = 0; k < resourceSpans.length; k++) {
    const r = base + k;
    const rs = obj(resourceSpans[k]);
    const resource = obj(rs.resource);
    rows.resource({
      resourceIndex: r,
      schemaUrl: str(rs.schemaUrl) || null,
      attributes: jsonAttributes(resource.attributes),
      droppedAttributes: count(resource.droppedAttributesCount),
    });
    const scopeSpans = rs.scopeSpans ?? rs.instrumentationLibrarySpans ?? [];
    if (!Array.isArray(scopeSpans))
      throw expectationFailed(OTLP_JSON_FORMAT, "scopeSpans", "an array", scopeSpans);
    for (let s = 0; s < scopeSpans.length; s++) {
      const ss = obj(scopeSpans[s]);
      const scope = obj(ss.scope ?? ss.instrumentationLibrary);
      rows.scope({
        resourceIndex: r,
        scopeIndex: s,
        name: str(scope.name),
        version: str(scope.version),
        schemaUrl: str(ss.schemaUrl) || null,
        attributes: jsonAttributes(scope.attributes),
        droppedAttributes: count(scope.droppedAttributesCount),
      });
      const spans = ss.spans ?? [];
      if (!Array.isArray(spans))
        throw expectationFailed(OTLP_JSON_FORMAT, "spans", "an array", spans);
      for (const span of spans) {
        const events = obj(span).events;
        const links = obj(span).links;
        rows.span(
          jsonSpan(
            span,
            r,
            s,
            Array.isArray(events) ? events.map(jsonEvent) : [],
            Array.isArray(links) ? links.map(jsonLink) : [],
          ),
        );
      }
    }
  }
}
