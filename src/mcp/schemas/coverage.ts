/**
 * Result of analyze_coverage (its input is the coverage request,
 * application/requests/recipe-requests.ts).
 */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const subjectRef = type({ type: "'run' | 'artifact'", id: "string" });

export const CoverageFile = type({
  file: "string",
  lines_executed: "number.integer",
  lines_total: "number.integer | null",
  percent_executed: "number | null",
  arcs_executed: "number.integer",
  arcs_not_executed: "number.integer",
  base_lines_executed: "number.integer | null",
  newly_executed: "number.integer | null",
  no_longer_executed: "number.integer | null",
  newly_executed_lines: "number.integer[] | null",
  no_longer_executed_lines: "number.integer[] | null",
  functions: type({
    function: "string",
    newly_executed: "number.integer",
    no_longer_executed: "number.integer",
  })
    .array()
    .or("null"),
});

export const CoverageResult = type({
  ...analysisFields,
  items: CoverageFile.array(),
  base: subjectRef.or("null"),
  totals: {
    files: "number.integer",
    lines_executed: "number.integer",
    lines_total: "number.integer | null",
    files_without_total: "number.integer",
    newly_executed: "number.integer | null",
    no_longer_executed: "number.integer | null",
  },
});
