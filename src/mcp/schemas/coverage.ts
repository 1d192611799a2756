/** Input and result of analyze_coverage. */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const ref = type("0 < string <= 200").describe("a run id (run_…) or an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)");

export const CoverageInput = type({
  "+": "reject",
  run_or_artifact: ref.describe("the run or artifact whose coverage is read"),
  "base?": ref.or("null").describe("a base run or artifact: the result then lists, per file, lines newly executed and no longer executed against it"),
  "limit?": type("1 <= number.integer <= 1000").describe("files per page, 1 to 1000"),
  "cursor?": type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page"),
});

const subjectRef = type({ type: "'run' | 'artifact'", id: "string" });

export const CoverageFile = type({
  file: "string", lines_executed: "number.integer", lines_total: "number.integer | null", percent_executed: "number | null",
  arcs_executed: "number.integer", arcs_not_executed: "number.integer",
  base_lines_executed: "number.integer | null", newly_executed: "number.integer | null", no_longer_executed: "number.integer | null",
  newly_executed_lines: "number.integer[] | null", no_longer_executed_lines: "number.integer[] | null",
  functions: type({ function: "string", newly_executed: "number.integer", no_longer_executed: "number.integer" }).array().or("null"),
});

export const CoverageResult = type({
  ...analysisFields,
  items: CoverageFile.array(),
  base: subjectRef.or("null"),
  totals: {
    files: "number.integer", lines_executed: "number.integer", lines_total: "number.integer | null", files_without_total: "number.integer",
    newly_executed: "number.integer | null", no_longer_executed: "number.integer | null",
  },
});
