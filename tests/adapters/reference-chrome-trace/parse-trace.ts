/**
 * Reference: payload → the event array and the container's own fields, through
 * JSON.parse. Accepts the object form (`{"traceEvents": [...], ...}`) and the bare array
 * form, including an array cut off before its closing `]` (allowed by the Trace Event
 * Format; repaired and reported).
 */
import type { AdapterLimits } from "../../../src/adapters/adapter.ts";
import { TRACE_FORMAT } from "../../../src/adapters/chrome-trace/trace-producer.ts";
import {
  expectationFailed,
  isPlainObject,
  parseJsonPayload,
  tooLarge,
} from "../../../src/adapters/json-guard.ts";
import { FlameoxError } from "../../../src/domain/errors.ts";

export interface ParsedTrace {
  events: unknown[];
  /** Top-level fields besides traceEvents (empty for the array form). */
  container: Record<string, unknown>;
  repairedTruncatedArray: boolean;
}

export function parseTrace(bytes: Uint8Array, limits: AdapterLimits): ParsedTrace {
  const { value, repairedTruncatedArray } = parseRepairing(bytes, limits.maxNestingDepth);
  let events: unknown[];
  let container: Record<string, unknown> = {};
  if (Array.isArray(value)) {
    events = value;
  } else if (isPlainObject(value)) {
    if (!Array.isArray(value.traceEvents))
      throw expectationFailed(TRACE_FORMAT, "traceEvents", "an array", value.traceEvents);
    events = value.traceEvents;
    container = value;
  } else {
    throw expectationFailed(TRACE_FORMAT, "the top-level value", "an array or an object", value);
  }
  if (events.length > limits.maxEvents)
    throw tooLarge(TRACE_FORMAT, "events", events.length, limits.maxEvents);
  return { events, container, repairedTruncatedArray };
}

/**
 * JSON.parse, and when that fails on a top-level array whose closing bracket is missing
 * (possibly after a trailing comma), the array closed and parsed again. Otherwise the
 * original error, which describes the real input.
 */
function parseRepairing(
  bytes: Uint8Array,
  maxDepth: number,
): { value: unknown; repairedTruncatedArray: boolean } {
  try {
    return {
      value: parseJsonPayload(bytes, maxDepth, TRACE_FORMAT).value,
      repairedTruncatedArray: false,
    };
  } catch (error) {
    // Only a syntax error can be a cut-off array (not the depth limit, not an empty payload).
    const syntax =
      error instanceof FlameoxError &&
      error.code === "ARTIFACT_PARSE_FAILED" &&
      error.message.includes("invalid JSON (");
    const repaired = syntax ? closeTruncatedArray(new TextDecoder().decode(bytes)) : null;
    if (repaired !== null) {
      try {
        return { value: JSON.parse(repaired), repairedTruncatedArray: true };
      } catch {
        // fall through to the original error
      }
    }
    throw error;
  }
}

const isJsonSpace = (code: number): boolean =>
  code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * `[ {...}, {...},` or `[ {...}, {...}` → closed array text; null when the text is not that case.
 */
function closeTruncatedArray(text: string): string | null {
  let start = 0;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  if (text.charCodeAt(start) !== 0x5b) return null;
  let end = text.length;
  while (end > 0 && isJsonSpace(text.charCodeAt(end - 1))) end--;
  if (text.charCodeAt(end - 1) === 0x2c) {
    end--;
    while (end > 0 && isJsonSpace(text.charCodeAt(end - 1))) end--;
  }
  if (text.charCodeAt(end - 1) !== 0x7d) return null;
  return text.slice(0, end) + "]";
}
