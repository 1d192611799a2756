/**
 * The request half of the parse-worker protocol (see parse-protocol.ts), checked without
 * a schema library: the worker is started once per import, and loading arktype costs it
 * ~0.4 s of startup, more than parsing a typical profile. The request is written by the
 * extraction service itself, so the check is about shape, not hostile input.
 */
export const PARSE_PROTOCOL = "flameox.parse.v2";
/**
 * The worker's argument that says its request comes on stdin: it was started before the request
 * was known, and loads its modules while the caller prepares the payload (startParseWorker).
 */
export const REQUEST_ON_STDIN = "-";

/** The largest response.json a parent will read; anything bigger is a protocol violation. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface ParseRequest {
  protocol: typeof PARSE_PROTOCOL;
  operation_id: string;
  payload_path: string;
  display_name: string;
  adapter: string | null;
  output_dir: string;
  /**
   * `memory_bytes` is the worker's memory budget (the cap the broker applies, when it can):
   * the worker paces its collections, and decides whether to encode on a second thread, by it.
   */
  /**
   * `scan_threads`: piece threads the worker starts (-1 or absent: as many as it has cores to
   * spare). `nest_thread`: whether a trace's slices are nested on a thread of their own (-1 or
   * absent: where a core is free for it; 0 never; 1 whenever the worker starts threads).
   */
  limits: {
    max_events: number;
    max_nesting_depth: number;
    max_args_bytes: number;
    max_decompressed_bytes: number;
    memory_bytes: number;
    scan_threads?: number;
    nest_thread?: number;
  };
  /**
   * `artifact_id` is absent when the payload is still landing (`landing`): the worker then
   * reads it from the landing file.
   */
  provenance: { run_id: string; artifact_id?: string; generation_id: string };
  /**
   * Present when the payload is still being copied into staging as the worker starts (an
   * import overlaps its copy with the parse). The worker reads `payload_path` as it grows, never
   * past `payload_bytes`, and takes the artifact's id from `landed_file`, which the parent
   * writes once the copy is hashed and registered. A copy that fails stops the worker instead.
   */
  landing?: { payload_bytes: number; landed_file: string };
  /**
   * What the adapter is told beside the bytes: a companion file's declaration context (see
   * companion-files.ts).
   */
  context?: Record<string, unknown> | null;
}

const STRINGS = ["operation_id", "payload_path", "display_name", "output_dir"] as const;
const LIMITS = [
  "max_events",
  "max_nesting_depth",
  "max_args_bytes",
  "max_decompressed_bytes",
  "memory_bytes",
] as const;
const PROVENANCE = ["run_id", "generation_id"] as const;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The request, or what is wrong with it. */
export function checkParseRequest(value: unknown): { request: ParseRequest } | { problem: string } {
  if (!isRecord(value)) return { problem: "the request must be an object" };
  if (value.protocol !== PARSE_PROTOCOL) return { problem: `protocol must be ${PARSE_PROTOCOL}` };
  for (const key of STRINGS)
    if (typeof value[key] !== "string") return { problem: `${key} must be a string` };
  if (value.adapter !== null && typeof value.adapter !== "string")
    return { problem: "adapter must be a string or null" };
  const { limits, provenance } = value;
  if (!isRecord(limits)) return { problem: "limits must be an object" };
  for (const key of LIMITS) {
    const n = limits[key];
    if (typeof n !== "number" || !Number.isInteger(n) || n <= 0)
      return { problem: `limits.${key} must be an integer > 0` };
  }
  const threads = limits.scan_threads;
  if (
    threads !== undefined &&
    (typeof threads !== "number" || !Number.isInteger(threads) || threads < -1 || threads > 1024)
  )
    return { problem: "limits.scan_threads must be an integer from -1 to 1024" };
  const nest = limits.nest_thread;
  if (nest !== undefined && nest !== -1 && nest !== 0 && nest !== 1)
    return { problem: "limits.nest_thread must be -1, 0 or 1" };
  if (!isRecord(provenance)) return { problem: "provenance must be an object" };
  for (const key of PROVENANCE)
    if (typeof provenance[key] !== "string")
      return { problem: `provenance.${key} must be a string` };
  const { landing } = value;
  if (landing === undefined) {
    if (typeof provenance.artifact_id !== "string")
      return { problem: "provenance.artifact_id must be a string" };
  } else if (
    !isRecord(landing) ||
    typeof landing.landed_file !== "string" ||
    typeof landing.payload_bytes !== "number" ||
    !Number.isSafeInteger(landing.payload_bytes) ||
    landing.payload_bytes < 0
  )
    return { problem: "landing must name landed_file and an integer payload_bytes >= 0" };
  if (value.context !== undefined && value.context !== null && !isRecord(value.context))
    return { problem: "context must be an object or null" };
  return { request: value as unknown as ParseRequest };
}

/**
 * The parse worker's progress file in its output directory: the decimal count of stored
 * payload bytes it has consumed, overwritten as it reads (workers/progress-file.ts).
 */
export const PARSE_PROGRESS_FILE = "progress";
