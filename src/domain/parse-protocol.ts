/**
 * The versioned request/response protocol between the extraction service and a parse
 * worker process. Both sides validate every message; anything outside the protocol is
 * treated as a worker failure. The request's check lives in parse-request.ts; the
 * response, written by a worker that parsed untrusted bytes, is checked here, field by
 * field. Both are checked by hand rather than with a schema library: one of each is read
 * per import, and loading arktype cost every import ~0.25 s of CPU.
 */
import { type CompanionFile, companionsProblem } from "./companion-files.ts";
import { PARSE_PROTOCOL } from "./parse-request.ts";

export {
  MAX_RESPONSE_BYTES,
  PARSE_PROGRESS_FILE,
  PARSE_PROTOCOL,
  type ParseRequest,
} from "./parse-request.ts";

export interface ParseLimitation {
  code: string;
  message: string;
  count?: number;
}

export interface ParsedTable {
  table: string;
  part: number;
  file: string;
  rows: number;
  schema_id: string;
}

/** STORAGE_FULL: the worker's output directory ran out of space; not the artifact's fault. */
export type ParseFailureCode =
  | "ARTIFACT_PARSE_FAILED"
  | "ARTIFACT_TOO_LARGE"
  | "ARTIFACT_FORMAT_UNKNOWN"
  | "STORAGE_FULL";

export type ParseResponse =
  | {
      protocol: typeof PARSE_PROTOCOL;
      ok: true;
      adapter: string;
      adapter_version: string;
      artifact_kind: string;
      media_type: string;
      producer: string | null;
      producer_version: string | null;
      compression: "none" | "gzip" | "zstd";
      tables: ParsedTable[];
      limitations: ParseLimitation[];
      summary: Record<string, string | number | boolean | null>;
      /** The worker's own peak resident set, measured by itself just before answering. */
      peak_rss_bytes: number;
      /**
       * Threads beside the parser that encoded Parquet parts (0: encoded inline; see
       * workers/encode-pool.ts).
       */
      encode_threads: number;
      /**
       * Threads beside the parser that scanned pieces of the payload (0: scanned in one piece; see
       * workers/piece-pool.ts). Absent from older workers.
       */
      scan_threads?: number;
      /**
       * Threads that nested a trace's slices beside the parser (0: nested by the parser; see
       * workers/nest-offload.ts). Absent from older workers.
       */
      nest_threads?: number;
      /**
       * Where the worker's time went (ms): start (runtime start to request), open_detect, extract,
       * encode_inline, encode_thread (each part's round trip to the encode thread, summed: parts
       * waiting behind one another overlap), encode_wait (the parser waiting for room on the encode
       * thread), parser_cpu and encode_thread_cpu (those threads' own CPU, where the platform
       * says), total.
       */
      stages_ms?: Record<string, number>;
      /** Files the artifact declares beside itself (see companion-files.ts); absent when none. */
      companions?: CompanionFile[];
    }
  | {
      protocol: typeof PARSE_PROTOCOL;
      ok: false;
      error: { code: ParseFailureCode; message: string };
    };

const FAILURE_CODES: readonly string[] = [
  "ARTIFACT_PARSE_FAILED",
  "ARTIFACT_TOO_LARGE",
  "ARTIFACT_FORMAT_UNKNOWN",
  "STORAGE_FULL",
];
const COMPRESSIONS: readonly string[] = ["none", "gzip", "zstd"];
const STRINGS = ["adapter", "adapter_version", "artifact_kind", "media_type"] as const;
const TABLE_FILE = /^[a-z_]+\.\d+\.parquet$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= max;
const isStringOrNull = (v: unknown) => v === null || typeof v === "string";

function tableProblem(t: unknown, at: string): string | null {
  if (!isRecord(t)) return `${at} must be an object`;
  if (typeof t.table !== "string") return `${at}.table must be a string`;
  if (!isCount(t.part, 99_999)) return `${at}.part must be an integer from 0 to 99999`;
  if (typeof t.file !== "string" || !TABLE_FILE.test(t.file))
    return `${at}.file must be a file name like trace_events.0.parquet`;
  if (!isCount(t.rows)) return `${at}.rows must be an integer >= 0`;
  if (typeof t.schema_id !== "string") return `${at}.schema_id must be a string`;
  return null;
}

function limitationProblem(l: unknown, at: string): string | null {
  if (!isRecord(l)) return `${at} must be an object`;
  if (typeof l.code !== "string" || typeof l.message !== "string")
    return `${at} must have a string code and message`;
  if (l.count !== undefined && typeof l.count !== "number") return `${at}.count must be a number`;
  return null;
}

function successProblem(v: Record<string, unknown>): string | null {
  for (const key of STRINGS) if (typeof v[key] !== "string") return `${key} must be a string`;
  if (!isStringOrNull(v.producer)) return "producer must be a string or null";
  if (!isStringOrNull(v.producer_version)) return "producer_version must be a string or null";
  if (typeof v.compression !== "string" || !COMPRESSIONS.includes(v.compression))
    return "compression must be none, gzip or zstd";
  if (!Array.isArray(v.tables)) return "tables must be an array";
  for (const [i, t] of v.tables.entries()) {
    const problem = tableProblem(t, `tables[${i}]`);
    if (problem) return problem;
  }
  if (!Array.isArray(v.limitations)) return "limitations must be an array";
  for (const [i, l] of v.limitations.entries()) {
    const problem = limitationProblem(l, `limitations[${i}]`);
    if (problem) return problem;
  }
  if (!isRecord(v.summary)) return "summary must be an object";
  for (const [key, value] of Object.entries(v.summary)) {
    if (value !== null && !["string", "number", "boolean"].includes(typeof value))
      return `summary.${key} must be a string, number, boolean or null`;
  }
  if (!isCount(v.peak_rss_bytes)) return "peak_rss_bytes must be an integer >= 0";
  if (!isCount(v.encode_threads, 16)) return "encode_threads must be an integer from 0 to 16";
  if (v.scan_threads !== undefined && !isCount(v.scan_threads, 1024))
    return "scan_threads must be an integer from 0 to 1024";
  if (v.nest_threads !== undefined && !isCount(v.nest_threads, 16))
    return "nest_threads must be an integer from 0 to 16";
  if (v.companions !== undefined) {
    const problem = companionsProblem(v.companions, "companions");
    if (problem) return problem;
  }
  if (v.stages_ms !== undefined) {
    if (!isRecord(v.stages_ms)) return "stages_ms must be an object";
    for (const [key, value] of Object.entries(v.stages_ms))
      if (typeof value !== "number") return `stages_ms.${key} must be a number`;
  }
  return null;
}

/** The response, or what breaks the protocol in it. */
export function checkParseResponse(
  value: unknown,
): { response: ParseResponse } | { problem: string } {
  if (!isRecord(value)) return { problem: "the response must be an object" };
  if (value.protocol !== PARSE_PROTOCOL) return { problem: `protocol must be ${PARSE_PROTOCOL}` };
  if (value.ok === false) {
    const error = value.error;
    if (
      !isRecord(error) ||
      typeof error.code !== "string" ||
      !FAILURE_CODES.includes(error.code) ||
      typeof error.message !== "string"
    ) {
      return {
        problem: `error must have a code (${FAILURE_CODES.join(", ")}) and a string message`,
      };
    }
    return { response: value as unknown as ParseResponse };
  }
  if (value.ok !== true) return { problem: "ok must be true or false" };
  const problem = successProblem(value);
  return problem ? { problem } : { response: value as unknown as ParseResponse };
}
