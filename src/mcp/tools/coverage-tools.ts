/**
 * analyze_coverage: lines executed per file, and the diff against a base run. Read-only and
 * bounded.
 */
import { answerCoverage, CoverageRequest } from "../../application/requests/recipe-requests.ts";
import { CoverageResult } from "../schemas/coverage.ts";
import { recipeLimit, toolPage } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const analyzeCoverage = defineTool({
  name: "analyze_coverage",
  title: "Analyze execution coverage",
  description:
    "For imported coverage (coverage.py .coverage data files, coverage json reports, " +
    "Cobertura XML) of a run or artifact: per file the distinct " +
    "lines executed and, where a report says which statements exist, the total and " +
    "percentage (paged items, by file). With base: per file the " +
    "lines newly executed and no longer executed (counts, line numbers up to 200 each, and " +
    "per function where the evidence names functions), " +
    "files with the most change first.",
  annotations: READ_ONLY,
  input: toolPage(CoverageRequest, recipeLimit("files")),
  result: CoverageResult,
  pageable: true,
  run: async (request, { session }) => answerCoverage(await session.open(), request),
  summarize: (r) =>
    [
      `coverage at ${r.corpus_commit_id}: ${r.returned} of ${r.total} ` +
        `files${r.next_cursor ? "; more with next_cursor" : ""}; ` +
        `evidence ${r.evidence.status}: ${r.evidence.reason}`,
      ...r.items
        .slice(0, 3)
        .map((f) =>
          r.base
            ? `${f.file}: +${f.newly_executed} / -${f.no_longer_executed} lines`
            : `${f.file}: ${f.lines_executed}` +
              `${f.lines_total === null ? "" : `/${f.lines_total}`} lines`,
        ),
    ].join("\n"),
});
