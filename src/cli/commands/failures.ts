/**
 * `flameox analyze failures RUN_OR_ARTIFACT...`: failing tests by outcome, cluster and flakiness.
 * Read-only.
 */
import { defineCommand } from "citty";
import { commonArgs, execute } from "../context.ts";
import { answerFailures, FailuresRequest } from "../../application/requests/recipe-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { safeText, table } from "../output.ts";
import { numberFlag, positionals } from "../request-flags.ts";

const evidenceLine = (e: { status: string; reason: string }) =>
  `evidence: ${e.status} (${safeText(e.reason)})`;
const counts = (by: Record<string, number>) =>
  Object.entries(by)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${v} ${k}`)
    .join(", ") || "no tests";

export const failuresCommand = defineCommand({
  meta: {
    name: "failures",
    description: "Test outcomes, failure clusters and flaky tests of one or more runs or artifacts",
  },
  args: {
    ...commonArgs,
    limit: { type: "string", description: "Maximum clusters to return" },
    cursor: { type: "string", description: "Opaque cursor from a previous page" },
    run_or_artifact: { type: "positional", required: true, description: "RUN_OR_ARTIFACT..." },
  },
  run: ({ args }) => {
    const refs = positionals(args, args.run_or_artifact);
    return execute(
      args,
      (s) =>
        answerFailures(
          s,
          checkRequest(FailuresRequest, {
            run_or_artifact: refs.length === 1 ? refs[0] : refs,
            limit: numberFlag(args.limit),
            cursor: args.cursor,
          }),
        ),
      (r) =>
        [
          `failures at ${r.corpus_commit_id}`,
          evidenceLine(r.evidence),
          ...r.populations.map(
            (p) =>
              `${p.subject.id}: ${p.tests} ` +
              `tests: ${counts(p.by_outcome)}${p.retried ? `; ${p.retried} retried` : ""}` +
              `${p.warnings ? `; ${p.warnings} warnings` : ""}`,
          ),
          r.items.length > 0
            ? table([
                ["COUNT", "TESTS", "EXCEPTION", "MESSAGE", "LOCATION"],
                ...r.items.map((c) => [
                  String(c.count),
                  String(c.tests),
                  safeText(c.exception_type ?? "-"),
                  safeText(c.message_pattern.slice(0, 80)),
                  safeText(c.location ?? "-"),
                ]),
              ])
            : "",
          r.flaky_total > 0
            ? `flaky (${r.flaky_total}): ${r.flaky
                .slice(0, 10)
                .map(
                  (f) => `${safeText(f.node_id)} [${f.outcomes.map((o) => o.outcome).join("/")}]`,
                )
                .join(", ")}`
            : "",
          ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
          r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
    );
  },
});
