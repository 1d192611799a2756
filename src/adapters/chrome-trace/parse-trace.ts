/**
 * Payload → the event array and the container's own fields. Accepts the object form
 * (`{"traceEvents": [...], ...}`) and the bare array form, including an array cut off
 * before its closing `]` (allowed by the Trace Event Format; repaired and reported).
 */
import type { AdapterLimits } from "../adapter.ts";
import { expectationFailed, isPlainObject, parseJsonPayload, tooLarge } from "../json-guard.ts";

export const TRACE_FORMAT = "chrome trace";

export interface ParsedTrace {
  events: unknown[];
  /** Top-level fields besides traceEvents (empty for the array form). */
  container: Record<string, unknown>;
  repairedTruncatedArray: boolean;
}

export function parseTrace(bytes: Uint8Array, limits: AdapterLimits): ParsedTrace {
  const { value, repairedTruncatedArray } = parseJsonPayload(bytes, limits.maxNestingDepth, TRACE_FORMAT, true);
  let events: unknown[];
  let container: Record<string, unknown> = {};
  if (Array.isArray(value)) {
    events = value;
  } else if (isPlainObject(value)) {
    if (!Array.isArray(value.traceEvents)) throw expectationFailed(TRACE_FORMAT, "traceEvents", "an array", value.traceEvents);
    events = value.traceEvents;
    container = value;
  } else {
    throw expectationFailed(TRACE_FORMAT, "the top-level value", "an array or an object", value);
  }
  if (events.length > limits.maxEvents) throw tooLarge(TRACE_FORMAT, "events", events.length, limits.maxEvents);
  return { events, container, repairedTruncatedArray };
}

/** The producer, when the container says so. */
export function traceProducer(container: Record<string, unknown>, displayName: string): { producer: string | null; version: string | null } {
  const metadata = isPlainObject(container.metadata) ? container.metadata : {};
  if ("schemaVersion" in container && ("deviceProperties" in container || "traceName" in container || "distributedInfo" in container)) {
    return { producer: "torch.profiler", version: null };
  }
  if (/\.pt\.trace\.json/i.test(displayName)) return { producer: "torch.profiler", version: null };
  if (metadata.source === "DevTools") return { producer: "chrome-devtools", version: null };
  if (typeof metadata["product-version"] === "string") return { producer: "chrome", version: metadata["product-version"] };
  if (typeof metadata["clock-domain"] === "string") return { producer: "chromium", version: null };
  return { producer: null, version: null };
}
