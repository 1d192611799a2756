/** What the `coverage-py` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";
import { isSqliteHeader } from "../sqlite/sqlite-header.ts";

/** What a coverage.py 4.x JSON data file starts with, before its JSON. */
export const LEGACY_BANNER = "!coverage.py: This is a private format, don't read it directly!";

function detectCoveragePy({ head }: DetectInput): number {
  if (head.startsWith(LEGACY_BANNER)) return 0.99;
  // The schema's CREATE statements sit on the first page, well inside the head.
  if (isSqliteHeader(head) && /CREATE TABLE coverage_schema\b/.test(head)) return 0.95;
  return 0;
}

export const coveragePyDescription: AdapterDescription = {
  name: "coverage-py",
  version: "1.0.0",
  tables: ["coverage_lines"],
  artifactKind: "execution_coverage",
  mediaType: "application/vnd.sqlite3",
  detect: detectCoveragePy,
};
