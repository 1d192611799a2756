/**
 * The Markdown of `flameox summarize`. Every figure is printed as the JSON result holds
 * it (no rounding, no unit conversion), so a reviewer can find each number in the JSON
 * and, through the section's source command, in flameox's own full output. Names, ids and
 * times are code spans: the bare numbers of the text are the figures and nothing else.
 */
import type { RunDigest, SummaryResult } from "../application/summarize-runs.ts";
import { safeText } from "./output.ts";

/** A code span that cannot end early or break a table row. */
const code = (value: unknown) =>
  `\`${safeText(value).replace(/`/g, "'").replace(/\|/g, "\\|").replace(/\n/g, " ")}\``;
const row = (cells: unknown[]) => `| ${cells.map(String).join(" | ")} |`;
const tableOf = (header: string[], rows: unknown[][]) =>
  [row(header), row(header.map(() => "---")), ...rows.map(row)].join("\n");
const num = (n: number) => String(n);

export function renderSummary(r: SummaryResult): string {
  return [
    "# Evidence summary",
    "",
    `Corpus commit ${code(r.corpus_commit_id)}; at most ${num(r.bounds.hotspots)} hotspots ` +
      `and ${num(r.bounds.measurement_groups)} measurement groups per run.`,
    ...r.runs.flatMap((run) => ["", ...renderRun(run)]),
  ].join("\n");
}

function renderRun(run: RunDigest): string[] {
  const s = run.statuses;
  const lines = [
    `## Run ${code(run.run_id)}`,
    "",
    `${run.run_type} run created ${code(run.created_at)}; execution ${s.execution}, ` +
      `capture ${s.capture}, extraction ${s.extraction}, validation ${s.validation}. ` +
      `Source: ${code(run.sources.run)}`,
    "",
    "### Artifacts",
    "",
    run.artifacts.length === 0
      ? "None registered."
      : tableOf(
          ["artifact", "names", "kinds", "producer", "bytes"],
          run.artifacts.map((a) => [
            code(a.artifact_id),
            a.display_names.map(code).join(", "),
            a.kinds.join(", "),
            a.producer === null
              ? ""
              : `${code(a.producer)}` +
                `${a.producer_version === null ? "" : ` ${code(a.producer_version)}`}`,
            num(a.byte_length),
          ]),
        ),
  ];
  if (run.artifacts.length > 0)
    lines.push("", `Source: ${run.sources.artifacts.map(code).join(", ")}`);
  const hot = run.hotspots;
  lines.push("", "### Hotspots", "");
  if (hot === null) lines.push("No frame measurements in this run.");
  else {
    lines.push(
      `Metric ${hot.metric ?? "none"}${hot.unit === null ? "" : ` (${hot.unit})`}: total ` +
        `self ${num(hot.total_self_value)} over ${num(hot.frames)} ` +
        `frames${hot.truncated ? `; top ${num(hot.items.length)} shown` : ""}.`,
      "",
      tableOf(
        ["rank", "frame", "function", "self", "total"],
        hot.items.map((h) => [
          num(h.rank),
          code(h.frame_id),
          code(h.function),
          num(h.self_value),
          num(h.inclusive_value),
        ]),
      ),
      "",
      `Source: ${code(run.sources.hotspots)}`,
    );
  }
  const m = run.measurements;
  lines.push("", "### Measurements", "");
  if (m === null) lines.push("No measurements in this run.");
  else {
    lines.push(
      `${num(m.total)} measurements (warm-ups excluded) in ${num(m.groups_total)} ` +
        `groups${m.truncated ? `; first ${num(m.groups.length)} by name shown` : ""}.`,
      "",
      tableOf(
        ["name", "unit", "aggregation", "count", "min", "max", "mean"],
        m.groups.map((g) => [
          code(g.name),
          code(g.unit),
          code(g.aggregation),
          num(g.count),
          num(g.min),
          num(g.max),
          num(g.mean),
        ]),
      ),
      "",
      `Source: ${code(run.sources.measurements)}`,
    );
  }
  lines.push("", "### Limitations", "");
  if (run.limitations.length === 0) lines.push("None recorded.");
  else
    for (const l of run.limitations)
      lines.push(
        `- ${code(l.code)}${l.count === undefined ? "" : ` (${num(l.count)})`}: ` +
          `${safeText(l.message)}`,
      );
  return lines;
}
