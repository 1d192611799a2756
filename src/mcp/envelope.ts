/**
 * The one envelope every tool returns: `structuredContent` = `{schema_version, ok,
 * result, error}` plus a short text mirror. Domain failures become `isError` results
 * with a typed error payload, never a stack trace. Results are bounded here whatever
 * the corpus: long strings are cut, and a result over the byte budget is refused.
 */
import { asFlameoxError, type ErrorPayload } from "../domain/errors.ts";
import { ENVELOPE_SCHEMA_VERSION } from "./schemas/common.ts";
import { recoveryFor } from "./recovery.ts";

/** No single tool result may exceed this many bytes of JSON. */
export const MAX_RESULT_BYTES = 60 * 1024;
/** Strings that come from artifacts (names, paths, args) are cut to this many characters. */
export const MAX_STRING_CHARS = 1024;
const MAX_TEXT_CHARS = 600;

export interface Envelope {
  schema_version: number;
  ok: boolean;
  result: unknown;
  error: ErrorPayload | null;
}

export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Envelope;
  isError?: boolean;
}

export function success(result: unknown, text: string): ToolCallResult {
  const envelope: Envelope = {
    schema_version: ENVELOPE_SCHEMA_VERSION,
    ok: true,
    result,
    error: null,
  };
  return { content: [{ type: "text", text: mirror(text) }], structuredContent: envelope };
}

export function failure(error: unknown, hidePaths: string[] = []): ToolCallResult {
  const payload = errorPayload(error, hidePaths);
  const envelope: Envelope = {
    schema_version: ENVELOPE_SCHEMA_VERSION,
    ok: false,
    result: null,
    error: payload,
  };
  const lines = [`error[${payload.code}]: ${payload.message}`];
  if (payload.run_id) lines.push(`run ${payload.run_id}`);
  if (payload.remediation[0]) lines.push(`next: ${payload.remediation[0]}`);
  return {
    content: [{ type: "text", text: mirror(lines.join("\n")) }],
    structuredContent: envelope,
    isError: true,
  };
}

/** The error payload of the closed code list, with MCP recovery steps and no host storage paths. */
export function errorPayload(error: unknown, hidePaths: string[] = []): ErrorPayload {
  const payload = asFlameoxError(error).toPayload();
  // Storage paths read as ".diagnostics", the project root itself as "the project root":
  // a client knows which root it started the server on and must not learn the host layout.
  const scrub = (text: string) =>
    hidePaths.reduce(
      (t, path) =>
        t.split(path).join(path.endsWith(".diagnostics") ? ".diagnostics" : "the project root"),
      text,
    );
  return {
    ...payload,
    message: bounded(scrub(payload.message)),
    remediation: recoveryFor(payload.code, payload.remediation).map(scrub),
    ...(payload.details
      ? { details: JSON.parse(scrub(JSON.stringify(payload.details))) as Record<string, unknown> }
      : {}),
  };
}

export function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** A deep copy with every string cut to MAX_STRING_CHARS and bigints as decimal strings. */
export function boundStrings(value: unknown): unknown {
  if (typeof value === "string") return bounded(value);
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(boundStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, boundStrings(v)]));
  }
  return value;
}

function bounded(text: string): string {
  return text.length <= MAX_STRING_CHARS ? text : `${text.slice(0, MAX_STRING_CHARS - 1)}…`;
}

/** The text mirror: control characters removed, a few hundred characters at most. */
function mirror(text: string): string {
  const clean = text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "");
  return clean.length <= MAX_TEXT_CHARS ? clean : `${clean.slice(0, MAX_TEXT_CHARS - 1)}…`;
}
