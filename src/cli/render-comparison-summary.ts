/**
 * The Markdown of `flameox summarize BASE CANDIDATE --compare`. As in the run digest, every
 * figure is printed as the JSON result holds it (no rounding), names and ids are code spans,
 * and each section ends with the command whose --json gives its figures in full.
 */
import type { ComparisonSummary, MovedFunction } from "../application/summarize-comparison.ts";
import { safeText } from "./output.ts";

const code = (value: unknown) =>
  `\`${safeText(value).replace(/`/g, "'").replace(/\|/g, "\\|").replace(/\n/g, " ")}\``;
const row = (cells: unknown[]) => `| ${cells.map(String).join(" | ")} |`;
const tableOf = (header: string[], rows: unknown[][]) =>
  [row(header), row(header.map(() => "---")), ...rows.map(row)].join("\n");
const num = (n: number | null) => (n === null ? "n/a" : String(n));

const movedTable = (items: MovedFunction[]) =>
  tableOf(
    [
      "rank",
      "function",
      "base self",
      "candidate self",
      "Δ self",
      "base total",
      "candidate total",
      "Δ total",
    ],
    items.map((f) => [
      num(f.rank),
      code(f.file === null ? f.function : `${f.function} (${f.file})`),
      num(f.base_self),
      num(f.candidate_self),
      num(f.delta_self),
      num(f.base_total),
      num(f.candidate_total),
      num(f.delta_total),
    ]),
  );

export function renderComparisonSummary(r: ComparisonSummary): string {
  const lines = [
    "# Comparison summary",
    "",
    `Base run ${code(r.base.run_id)}, candidate run ${code(r.candidate.run_id)}; corpus ` +
      `commit ${code(r.corpus_commit_id)}; at most ${num(r.bounds.functions)} functions per ` +
      `ranking and ${num(r.bounds.measurements)} measurements.`,
    "",
    "## Artifacts",
    "",
    tableOf(
      ["side", "artifact", "names", "kinds", "bytes"],
      [
        ...r.base.artifacts.map((a) => [
          "base",
          code(a.artifact_id),
          a.display_names.map(code).join(", "),
          a.kinds.join(", "),
          num(a.byte_length),
        ]),
        ...r.candidate.artifacts.map((a) => [
          "candidate",
          code(a.artifact_id),
          a.display_names.map(code).join(", "),
          a.kinds.join(", "),
          num(a.byte_length),
        ]),
      ],
    ),
    "",
    "## Functions that moved",
    "",
  ];
  if (r.profiles.length === 0) lines.push("No frame metric is measured in both runs.", "");
  for (const p of r.profiles) {
    lines.push(
      `### Metric ${p.metric ?? "none"} (${p.unit})`,
      "",
      `Totals: base ${num(p.totals.base)}, candidate ${num(p.totals.candidate)}, ` +
        `change ${num(p.totals.delta)}.`,
      "",
      "By self:",
      "",
      movedTable(p.by_self),
      "",
      `Source: ${code(p.sources.self)}`,
      "",
      "By total:",
      "",
      movedTable(p.by_total),
      "",
      `Source: ${code(p.sources.total)}`,
      "",
    );
  }
  if (r.metrics_unmatched.length > 0)
    lines.push(`Measured in one run only: ${r.metrics_unmatched.map(code).join(", ")}.`, "");
  lines.push("## Measurements", "");
  if (r.measurements.length === 0) lines.push("No sampled measurement is in both runs.");
  for (const m of r.measurements) {
    lines.push(
      `- ${code(m.name)} of ${code(m.scope)} (${code(m.unit ?? "")}, ${m.polarity}): ` +
        `base ${num(m.baseline_value)}, candidate ${num(m.candidate_value)}, relative ` +
        `change ${num(m.relative_change)} in ` +
        `[${num(m.confidence_low)}, ${num(m.confidence_high)}] at ` +
        `level ${num(m.confidence_level)}, effect ` +
        `size ${num(m.effect_size)}, ${num(m.complete_pair_n)} pairs; ${m.decision} ` +
        `(${m.validity}${m.caveats.length > 0 ? `: ${m.caveats.join(", ")}` : ""}). ` +
        `Source: ${code(m.source)}`,
    );
  }
  if (r.measurements_not_shown > 0 || r.measurements_unmatched > 0)
    lines.push(
      "",
      `Not shown: ${num(r.measurements_not_shown)} beyond the ` +
        `bound; ${num(r.measurements_unmatched)} in one run only.`,
    );
  return lines.join("\n");
}
