/**
 * `flameox analyze coverage RUN_OR_ARTIFACT [--diff BASE]`: lines executed per file, and what
 * changed against a base. Read-only.
 */
import { defineCommand } from "citty";
import { commonArgs, execute } from "../context.ts";
import { answerCoverage, CoverageRequest } from "../../application/requests/recipe-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import { safeText, table } from "../output.ts";
import { numberFlag } from "../request-flags.ts";

const evidenceLine = (e: { status: string; reason: string }) =>
  `evidence: ${e.status} (${safeText(e.reason)})`;
const lines = (list: number[] | null, count: number | null) =>
  list === null || count === null
    ? "-"
    : count === 0
      ? ""
      : `${list.slice(0, 12).join(",")}${count > 12 ? ` (+${count - 12})` : ""}`;

export const coverageCommand = defineCommand({
  meta: {
    name: "coverage",
    description:
      "Lines executed per file of a run or artifact; with --diff, lines newly executed and " +
      "no longer executed against a base run",
  },
  args: {
    ...commonArgs,
    diff: { type: "string", description: "Base run or artifact to compare with" },
    limit: { type: "string", description: "Maximum files to return" },
    cursor: { type: "string", description: "Opaque cursor from a previous page" },
    run_or_artifact: { type: "positional", required: true, description: "RUN_OR_ARTIFACT" },
  },
  run: ({ args }) =>
    execute(
      args,
      (s) =>
        answerCoverage(
          s,
          checkRequest(CoverageRequest, {
            run_or_artifact: args.run_or_artifact,
            base: args.diff,
            limit: numberFlag(args.limit),
            cursor: args.cursor,
          }),
        ),
      (r) =>
        [
          `coverage at ${r.corpus_commit_id}${r.base ? ` against ${r.base.id}` : ""}`,
          evidenceLine(r.evidence),
          r.items.length > 0
            ? r.base
              ? table([
                  ["FILE", "EXECUTED", "BASE", "NEW", "GONE", "NEW LINES", "GONE LINES"],
                  ...r.items.map((f) => [
                    safeText(f.file),
                    String(f.lines_executed),
                    String(f.base_lines_executed),
                    String(f.newly_executed),
                    String(f.no_longer_executed),
                    lines(f.newly_executed_lines, f.newly_executed),
                    lines(f.no_longer_executed_lines, f.no_longer_executed),
                  ]),
                ])
              : table([
                  ["FILE", "EXECUTED", "TOTAL", "%", "ARCS"],
                  ...r.items.map((f) => [
                    safeText(f.file),
                    String(f.lines_executed),
                    f.lines_total === null ? "?" : String(f.lines_total),
                    f.percent_executed === null ? "-" : f.percent_executed.toFixed(1),
                    String(f.arcs_executed),
                  ]),
                ])
            : "",
          `total: ${r.totals.lines_executed} lines executed in ${r.totals.files} files` +
            (r.totals.lines_total !== null ? ` of ${r.totals.lines_total} known statements` : "") +
            (r.totals.files_without_total
              ? `; ${r.totals.files_without_total} files without a statement total`
              : "") +
            (r.base
              ? `; ${r.totals.newly_executed} newly executed, ${r.totals.no_longer_executed} ` +
                `no longer executed`
              : ""),
          ...r.limitations.map((l) => `limitation ${l.code}: ${safeText(l.message)}`),
          r.next_cursor ? `more: --cursor ${r.next_cursor}` : "",
        ]
          .filter(Boolean)
          .join("\n"),
    ),
});
