/**
 * Guarded JSON parsing for adapters. JSON.parse is fast but trusts its input: a payload
 * of 100k `[` could exhaust the stack of whatever walks the result, and its error
 * messages name no field. So payloads are scanned first (a linear pass that skips string
 * contents) and rejected when nested deeper than the limit; shape errors are reported
 * in one Deno-style wording that names the field.
 */
import { FlameoxError } from "../domain/errors.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

/** Byte classes for the nesting scan: 0 = uninteresting, so most bytes cost one load. */
const OTHER = 0;
const STRING_START = 1;
const OPENS = 2;
const CLOSES = 3;
const BYTE_CLASS = new Uint8Array(256);
BYTE_CLASS[QUOTE] = STRING_START;
BYTE_CLASS[0x5b] = OPENS;
BYTE_CLASS[0x7b] = OPENS;
BYTE_CLASS[0x5d] = CLOSES;
BYTE_CLASS[CLOSE_BRACE] = CLOSES;

export function parseFailed(format: string, detail: string, cause?: unknown): FlameoxError {
  return new FlameoxError("ARTIFACT_PARSE_FAILED", `Cannot parse ${format}: ${detail}`, {
    remediation: ["Check that the file is a complete, unmodified " + format + " artifact"],
    cause,
  });
}

export function tooLarge(format: string, what: string, count: number, limit: number): FlameoxError {
  return new FlameoxError(
    "ARTIFACT_TOO_LARGE",
    `Cannot import ${format}: ${count} ${what} exceed the limit of ${limit}`,
    {
      remediation: [
        "Record a shorter profile or trace",
        "Raise the event limit if the host has the memory",
      ],
      details: { count, limit },
    },
  );
}

/** `typeof` with the distinctions a reader cares about (array, null). */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

export function expectationFailed(
  format: string,
  field: string,
  expected: string,
  value: unknown,
): FlameoxError {
  return parseFailed(
    format,
    `expected ${field} to be ${expected} but found ${describeType(value)}`,
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Rejects payloads nested deeper than `maxDepth`. One pass over the bytes with a class
 * table; string contents (including escaped quotes) are skipped, so brackets inside
 * strings do not count. Malformed input is left for JSON.parse to describe.
 */
export function assertNestingWithin(bytes: Uint8Array, maxDepth: number, format: string): void {
  let depth = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const kind = BYTE_CLASS[bytes[i]!]!;
    if (kind === OTHER) continue;
    if (kind === STRING_START) {
      for (i++; i < n; i++) {
        const b = bytes[i]!;
        if (b === QUOTE) break;
        if (b === BACKSLASH) i++;
      }
    } else if (kind === OPENS) {
      if (++depth > maxDepth)
        throw parseFailed(format, `nesting deeper than ${maxDepth} levels at byte ${i}`);
    } else {
      depth--;
    }
  }
}

export interface ParsedJson {
  value: unknown;
}

const decoder = new TextDecoder("utf-8");

/** Depth-checks, decodes and parses; nothing is repaired. */
export function parseJsonPayload(bytes: Uint8Array, maxDepth: number, format: string): ParsedJson {
  assertNestingWithin(bytes, maxDepth, format);
  const text = decoder.decode(bytes);
  if (firstNonSpace(text) === text.length) throw parseFailed(format, "the payload is empty");
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    throw parseFailed(
      format,
      `invalid JSON (${error instanceof Error ? error.message : String(error)})`,
      error,
    );
  }
}

/** Index of the first non-whitespace character (no copy of a possibly huge string). */
function firstNonSpace(text: string): number {
  let i = 0;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * A text document's characters: strict UTF-8 (an invalid byte is a typed parse error
 * naming the format, not a replacement character), with a leading byte order mark dropped.
 */
export function decodeUtf8Document(bytes: Uint8Array, format: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch (error) {
    throw parseFailed(format, "the document is not valid UTF-8", error);
  }
}
