/**
 * The versioned request/response protocol between the extraction service and a parse
 * worker process. Both sides validate every message; anything outside the protocol is
 * treated as a worker failure. The request's check lives in parse-request.ts, which the
 * worker loads without arktype; the response, written by a worker that parsed untrusted
 * bytes, is checked here against the full schema.
 */
import { type } from "arktype";
import { PARSE_PROTOCOL } from "./parse-request.ts";

export { MAX_RESPONSE_BYTES, PARSE_PROGRESS_FILE, PARSE_PROTOCOL, type ParseRequest } from "./parse-request.ts";

const Limitation = type({ code: "string", message: "string", "count?": "number" });

export const ParseResponse = type({
  protocol: `'${PARSE_PROTOCOL}'`,
  ok: "true",
  adapter: "string",
  adapter_version: "string",
  artifact_kind: "string",
  media_type: "string",
  producer: "string | null",
  producer_version: "string | null",
  compression: "'none' | 'gzip' | 'zstd'",
  tables: type({ table: "string", part: "0 <= number.integer < 100000", file: /^[a-z_]+\.\d+\.parquet$/, rows: "number.integer >= 0", schema_id: "string" }).array(),
  limitations: Limitation.array(),
  summary: "Record<string, string | number | boolean | null>",
  /** The worker's own peak resident set, measured by itself just before answering. */
  peak_rss_bytes: "number.integer >= 0",
  /** Threads beside the parser that encoded Parquet parts (0: encoded inline; see workers/encode-pool.ts). */
  encode_threads: "0 <= number.integer <= 16",
  /** Where the worker's time went (ms): start (process start to request), open_detect, extract, encode_inline, encode_thread, total. */
  "stages_ms?": "Record<string, number>",
}).or({
  protocol: `'${PARSE_PROTOCOL}'`,
  ok: "false",
  error: { code: "'ARTIFACT_PARSE_FAILED' | 'ARTIFACT_TOO_LARGE' | 'ARTIFACT_FORMAT_UNKNOWN'", message: "string" },
});
export type ParseResponse = typeof ParseResponse.infer;

/** The response, or a summary of how it breaks the protocol. */
export function checkParseResponse(value: unknown): { response: ParseResponse } | { problem: string } {
  const checked = ParseResponse(value);
  return checked instanceof type.errors ? { problem: checked.summary } : { response: checked };
}

