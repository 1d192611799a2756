/**
 * Fields that many requests share: ids, pages and metrics. Each is bounded here once,
 * so every request that names a run, an artifact or a page takes the same values and
 * refuses the same ones.
 */
import { type } from "arktype";
import { FRAME_METRICS } from "../../domain/evidence-schema.ts";
import { MAX_PAGE_ROWS } from "../../domain/page-size.ts";

/** An id a request names, bounded like every other id and described for the tool's caller. */
export const recordId = (what: string) => type("0 < string <= 200").describe(what);

export const runId = type("0 < string <= 200").describe(
  "a run id (run_…) from list_runs or import_artifact",
);
export const artifactId = type("0 < string <= 200").describe(
  "an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)",
);
export const subject = type("0 < string <= 200").describe(
  "a run id (run_…) or an artifact id (sha256:…)",
);
/** A run or an artifact, by any id `resolveSubject` accepts. */
export const runOrArtifact = type("0 < string <= 200").describe(
  "a run id (run_…) or an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)",
);
export const frameId = type("0 < string <= 200").describe("a frame id from analyze_hotspots");
export const cursor = type("0 < string <= 4096")
  .or("null")
  .describe("the opaque next_cursor of the previous page, or null for the first page");
/**
 * Rows per page. The workspace's `analysis.max_row_limit` caps what a page returns; the
 * MCP tools take a lower bound of their own (see mcp/schemas/tool-pages.ts).
 */
export const pageLimit = type(`1 <= number.integer <= ${MAX_PAGE_ROWS}`).describe(
  `a page size from 1 to ${MAX_PAGE_ROWS}`,
);
export const metric = type
  .enumerated(...FRAME_METRICS)
  .describe(
    "cpu_time, wall_time, samples, or a memory/lock metric (alloc_space, inuse_space, …); " +
      "default: cpu_time when present, else the first available",
  );
