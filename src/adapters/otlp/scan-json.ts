/**
 * OTLP/JSON through the WASM JSON scanner: resources and scopes are announced when they
 * open (so spans know their ordinals), spans arrive after their events and links, and
 * every value is rebuilt as JSON.parse would give it, then converted by json-values.ts.
 */
import type { AdapterLimits } from "../adapter.ts";
import { expectationFailed } from "../json-guard.ts";
import { skipByteOrderMark } from "../wasm/byte-order-mark.ts";
import {
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_OBJECT,
  sampleOfKind,
  type JsonBatch,
} from "../wasm/json-batch.ts";
import {
  JsonProgram,
  MODE_JSON,
  MODE_JSON_IF_CONTAINER,
  MODE_SCALAR,
} from "../wasm/json-program.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import { jsonAttributes } from "./attributes.ts";
import { count, jsonEvent, jsonLink, jsonSpan, OTLP_JSON_FORMAT, str } from "./json-values.ts";
import type { OtlpRows } from "./otlp-rows.ts";
import type { EventInput, LinkInput } from "./span-input.ts";

const R_ROOT = 0,
  R_RS = 1,
  R_SS = 2,
  R_SPAN = 3,
  R_EVENT = 4,
  R_LINK = 5;
const ANY = MODE_SCALAR | MODE_JSON_IF_CONTAINER;
const SPAN_KEYS = [
  "traceId",
  "spanId",
  "parentSpanId",
  "traceState",
  "name",
  "kind",
  "startTimeUnixNano",
  "endTimeUnixNano",
  "attributes",
  "droppedAttributesCount",
  "droppedEventsCount",
  "droppedLinksCount",
  "flags",
];
const EVENT_KEYS = ["timeUnixNano", "name", "attributes", "droppedAttributesCount"];
const LINK_KEYS = [
  "traceId",
  "spanId",
  "traceState",
  "attributes",
  "droppedAttributesCount",
  "flags",
];
const SPAN_STATUS_CODE = 13,
  SPAN_STATUS_MESSAGE = 14,
  SPAN_EVENTS = 15;

function fields(p: JsonProgram, node: number, record: number, keys: string[]): void {
  keys.forEach((key, slot) =>
    p.slot(p.key(node, key), record, slot, key === "attributes" ? MODE_JSON : ANY),
  );
}

function otlpProgram(): JsonProgram {
  const p = new JsonProgram(16);
  p.record(0, R_ROOT).special(R_ROOT, -1, "");
  const resourceSpans = p.key(0, "resourceSpans");
  p.slot(resourceSpans, R_ROOT, 0);
  const result = p.key(0, "result");
  p.key(result, "resourceSpans", resourceSpans);
  const rs = p.elem(resourceSpans, p.node({ record: R_RS }));
  p.announce(R_RS).special(R_RS, -1, "");
  const resource = p.key(rs, "resource");
  p.slot(p.key(resource, "attributes"), R_RS, 0, MODE_JSON);
  p.slot(p.key(resource, "droppedAttributesCount"), R_RS, 1, ANY);
  p.slot(p.key(rs, "schemaUrl"), R_RS, 2, ANY);
  const scopeSpans = p.key(rs, "scopeSpans");
  p.key(rs, "instrumentationLibrarySpans", scopeSpans);
  p.slot(scopeSpans, R_RS, 3);
  const ss = p.elem(scopeSpans, p.node({ record: R_SS }));
  p.announce(R_SS).special(R_SS, -1, "");
  const scope = p.key(ss, "scope");
  p.key(ss, "instrumentationLibrary", scope);
  ["name", "version"].forEach((key, slot) => p.slot(p.key(scope, key), R_SS, slot, ANY));
  p.slot(p.key(scope, "attributes"), R_SS, 2, MODE_JSON);
  p.slot(p.key(scope, "droppedAttributesCount"), R_SS, 3, ANY);
  p.slot(p.key(ss, "schemaUrl"), R_SS, 4, ANY);
  const spans = p.key(ss, "spans");
  p.slot(spans, R_SS, 5);
  const span = p.elem(spans, p.node({ record: R_SPAN }));
  p.special(R_SPAN, -1, "");
  fields(p, span, R_SPAN, SPAN_KEYS);
  const status = p.key(span, "status");
  p.slot(p.key(status, "code"), R_SPAN, SPAN_STATUS_CODE, ANY);
  p.slot(p.key(status, "message"), R_SPAN, SPAN_STATUS_MESSAGE, ANY);
  const events = p.key(span, "events");
  p.slot(events, R_SPAN, SPAN_EVENTS);
  fields(p, p.elem(events, p.node({ record: R_EVENT })), R_EVENT, EVENT_KEYS);
  fields(p, p.elem(p.key(span, "links"), p.node({ record: R_LINK })), R_LINK, LINK_KEYS);
  p.special(R_EVENT, -1, "").special(R_LINK, -1, "");
  return p;
}

/** The record's slots as an object of JSON.parse values (absent slots left out). */
function objectOf(b: JsonBatch, r: number, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  keys.forEach((key, slot) => {
    if (b.kind(r, slot) !== TAG_ABSENT) out[key] = b.value(r, slot);
  });
  return out;
}

// A sequence of requests (JSON Lines, as the Collector's file exporter writes) is one
// trace: resource indexes continue from request to request.
const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: OTLP_JSON_FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: 1 << 30,
  valueSequence: true,
});

/** The requests in chunks; spans, events and links are flushed to the sink as batches fill. */
export async function scanOtlpJson(
  chunks: AsyncIterable<Uint8Array>,
  limits: AdapterLimits,
  rows: OtlpRows,
): Promise<void> {
  const scanner = await JsonScanner.open(otlpProgram(), scanOptions(limits));
  const reader = otlpJsonReader(rows);
  for await (const chunk of skipByteOrderMark(chunks)) {
    scanner.push(chunk, reader.onBatch);
    if (reader.takeFlushDue()) await rows.flush(false);
  }
  scanner.finish(false, reader.onBatch);
  reader.finish();
}

function otlpJsonReader(rows: OtlpRows): {
  onBatch: (b: JsonBatch) => void;
  takeFlushDue(): boolean;
  finish(): void;
} {
  const resourceOf = new Map<number, number>(); // R_RS serial → resource index
  const scopeOf = new Map<number, [number, number]>(); // R_SS serial → (resource, scope) index
  let events: EventInput[] = [];
  let links: LinkInput[] = [];
  let childrenOf = -1;
  let requests = 0;
  /** Resources of the requests before the current one, and of the current one so far. */
  let resourceBase = 0;
  let requestResources = 0;
  let flushDue = false;
  const onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (b.announced(r)) {
        if (type === R_RS) {
          resourceOf.set(b.serial(r), resourceBase + b.index(r));
          requestResources = Math.max(requestResources, b.index(r) + 1);
        } else if (type === R_SS)
          scopeOf.set(b.serial(r), [resourceOf.get(b.parent(r)) ?? 0, b.index(r)]);
        continue;
      }
      if (type === R_EVENT || type === R_LINK) {
        if (b.parent(r) !== childrenOf) {
          events = [];
          links = [];
          childrenOf = b.parent(r);
        }
        if (type === R_EVENT)
          events.push(jsonEvent(b.selfKind(r) === TAG_OBJECT ? objectOf(b, r, EVENT_KEYS) : null));
        else links.push(jsonLink(b.selfKind(r) === TAG_OBJECT ? objectOf(b, r, LINK_KEYS) : null));
      } else if (type === R_SPAN) {
        const [resource, scope] = scopeOf.get(b.parent(r)) ?? [0, 0];
        let value: unknown = sampleOfKind(b.selfKind(r));
        if (b.selfKind(r) === TAG_OBJECT) {
          const s = objectOf(b, r, SPAN_KEYS);
          if (
            b.kind(r, SPAN_STATUS_CODE) !== TAG_ABSENT ||
            b.kind(r, SPAN_STATUS_MESSAGE) !== TAG_ABSENT
          ) {
            s.status = {
              code: b.value(r, SPAN_STATUS_CODE),
              message: b.value(r, SPAN_STATUS_MESSAGE),
            };
          }
          value = s;
        }
        const mine = b.serial(r) === childrenOf;
        if (rows.span(jsonSpan(value, resource, scope, mine ? events : [], mine ? links : [])))
          flushDue = true;
        if (mine) childrenOf = -1;
      } else if (type === R_SS) {
        const [resource, scope] = scopeOf.get(b.serial(r)) ?? [resourceBase, b.index(r)];
        if (b.kind(r, 5) !== TAG_ABSENT && b.kind(r, 5) !== TAG_ARRAY)
          throw expectationFailed(
            OTLP_JSON_FORMAT,
            "spans",
            "an array",
            sampleOfKind(b.kind(r, 5)),
          );
        rows.scope({
          resourceIndex: resource,
          scopeIndex: scope,
          name: str(b.value(r, 0)),
          version: str(b.value(r, 1)),
          schemaUrl: str(b.value(r, 4)) || null,
          attributes: jsonAttributes(b.value(r, 2)),
          droppedAttributes: count(b.value(r, 3)),
        });
      } else if (type === R_RS) {
        if (b.kind(r, 3) !== TAG_ABSENT && b.kind(r, 3) !== TAG_ARRAY)
          throw expectationFailed(
            OTLP_JSON_FORMAT,
            "scopeSpans",
            "an array",
            sampleOfKind(b.kind(r, 3)),
          );
        rows.resource({
          resourceIndex: resourceBase + b.index(r),
          schemaUrl: str(b.value(r, 2)) || null,
          attributes: jsonAttributes(b.value(r, 0)),
          droppedAttributes: count(b.value(r, 1)),
        });
      } else if (type === R_ROOT) {
        checkRequest(b.selfKind(r), b.kind(r, 0));
        requests++;
        resourceBase += requestResources;
        requestResources = 0;
      }
    }
  };
  const takeFlushDue = (): boolean => {
    const due = flushDue;
    flushDue = false;
    return due;
  };
  const finish = (): void => {
    if (requests === 0) checkRequest(TAG_ABSENT, TAG_ABSENT);
  };
  return { onBatch, takeFlushDue, finish };
}

function checkRequest(rootKind: number, resourceSpansKind: number): void {
  if (rootKind !== TAG_OBJECT)
    throw expectationFailed(
      OTLP_JSON_FORMAT,
      "the top-level value",
      "an object",
      sampleOfKind(rootKind),
    );
  if (resourceSpansKind !== TAG_ARRAY)
    throw expectationFailed(
      OTLP_JSON_FORMAT,
      "resourceSpans",
      "an array",
      sampleOfKind(resourceSpansKind),
    );
}
