/**
 * Tool inputs. Every object rejects unknown keys, every string and number is bounded,
 * and no input anywhere takes a shell string, argv, environment or SQL. The server
 * validates arguments with these types and publishes their JSON Schema as the tool's
 * `inputSchema`, so one definition serves both (descriptions included: they appear in
 * the schema and in validation messages).
 */
import { type } from "arktype";
import { ImportOptions } from "../../application/import-request.ts";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";

/** Hard maxima per call, whatever the workspace configuration allows. */
export const MAX_LIST_LIMIT = 200;
export const MAX_TRACE_LIMIT = 1000;

const runId = type("0 < string <= 200").describe("a run id (run_…) from list_runs or import_artifact");
const artifactId = type("0 < string <= 200").describe("an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)");
export const subject = type("0 < string <= 200").describe("a run id (run_…) or an artifact id (sha256:…)");
const frameId = type("0 < string <= 200").describe("a frame id from analyze_hotspots");
export const cursor = type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page");
export const listLimit = type(`1 <= number.integer <= ${MAX_LIST_LIMIT}`).describe(`a page size from 1 to ${MAX_LIST_LIMIT}`);
export const metric = type(FRAME_METRICS.map((m) => `'${m}'`).join(" | ") as "'cpu_time' | 'wall_time'").describe(
  "cpu_time, wall_time, samples, or a memory/lock metric (alloc_space, inuse_space, …); default: cpu_time when present, else the first available",
);

export const NoArguments = type({ "+": "reject" });

/** The import use case's own options (application/import-request.ts), plus where the file is. */
export const ImportArtifactInput = type({
  "...": ImportOptions,
  "+": "reject",
  path: type("0 < string <= 4096").describe("a file path under the chosen source root (relative paths resolve against it)"),
  "source_root?": type("'project' | 'temp'").describe("project (default: the server's project root) or temp (the system temp directory)"),
});

export const ListInput = type({ "+": "reject", "limit?": listLimit, "cursor?": cursor });

export const GetRunInput = type({ "+": "reject", run_id: runId });
export const GetArtifactInput = type({ "+": "reject", artifact_id: artifactId });

export const HotspotsInput = type({
  "+": "reject",
  run_or_artifact: subject,
  "limit?": listLimit,
  "cursor?": cursor,
  "metric?": metric,
  "granularity?": type("'function' | 'line' | 'file'").describe("rows per function (default, as pprof -top), per stored frame (line) or per file"),
  "exclude_pseudo_frames?": type("boolean").describe("leave out (idle), (program), (garbage collector) and (root); the result says what was left out"),
});

export const FrameDrillInput = type({
  "+": "reject",
  run_or_artifact: subject,
  frame_id: frameId,
  "limit?": listLimit,
  "cursor?": cursor,
  "metric?": metric,
  "granularity?": type("'function' | 'line'").describe("all of the frame's function (default, as hotspots' rows) or the stored frame alone (line)"),
});

/** Nanoseconds as a decimal integer string (int64) or a JSON safe integer. */
const nanoseconds = type(/^-?[0-9]{1,19}$/)
  .or("-9007199254740991 <= number.integer <= 9007199254740991")
  .describe("nanoseconds in the trace clock, as an integer string or a safe integer");

export const TraceWindowInput = type({
  "+": "reject",
  artifact_id: artifactId,
  start_ns: nanoseconds,
  end_ns: nanoseconds,
  "limit?": type(`1 <= number.integer <= ${MAX_TRACE_LIMIT}`).describe(`a page size from 1 to ${MAX_TRACE_LIMIT}`),
  "cursor?": cursor,
});

export const ValidateInput = type({ "+": "reject", "mode?": type("'standard' | 'full'").describe("standard (default) or full (rehashes every artifact and evidence file)") });

export const GetEvidenceInput = type({
  "+": "reject",
  ref_type: type("'run' | 'artifact' | 'generation'").describe("what ref_id names: run, artifact or generation"),
  ref_id: type("0 < string <= 200").describe("a run id (run_…), artifact id (sha256:…) or generation id (gen_…)"),
});
