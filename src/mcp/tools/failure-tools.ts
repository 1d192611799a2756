/** analyze_failures: test outcomes, failure clusters and flaky tests. Read-only and bounded. */
import { answerFailures, FailuresRequest } from "../../application/requests/recipe-requests.ts";
import { FailuresResult } from "../schemas/failures.ts";
import { recipeLimit, toolPage } from "../schemas/tool-pages.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

export const analyzeFailures = defineTool({
  name: "analyze_failures",
  title: "Analyze test failures",
  description:
    "For imported test reports (pytest-reportlog JSONL, JUnit XML) of one or more runs or " +
    "artifacts: tests per outcome for each input, failing phases " +
    "clustered by exception type + normalized message + crash location (paged items, largest " +
    "first), and flaky tests (same node id " +
    "passing in one input and failing in another, or passing after a retry).",
  annotations: READ_ONLY,
  input: toolPage(FailuresRequest, recipeLimit("clusters")),
  result: FailuresResult,
  pageable: true,
  run: async (request, { session }) => answerFailures(await session.open(), request),
  summarize: (r) =>
    [
      `failures at ${r.corpus_commit_id}: ${r.returned} of ${r.total} ` +
        `clusters${r.next_cursor ? "; more with next_cursor" : ""}; ${r.flaky_total} flaky; ` +
        `evidence ${r.evidence.status}: ${r.evidence.reason}`,
      ...r.items
        .slice(0, 3)
        .map(
          (c) =>
            `${c.count}× ${c.exception_type ?? "?"}: ${c.message_pattern.slice(0, 80)} ` +
            `at ${c.location ?? "?"}`,
        ),
    ].join("\n"),
});
