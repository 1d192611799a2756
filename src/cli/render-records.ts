/**
 * Text for `runs show`, `artifacts show` and `runs logs`: what a person reads at a
 * terminal. `--json` prints the result model instead. Names and messages come from
 * artifacts and processes, so they pass through safeText before reaching the terminal.
 */
import type { RunLogs } from "../application/run-logs.ts";
import type { ArtifactDetail, RunDetail } from "../application/record-details.ts";
import { bold, dim, formatBytes, green, red, safeText, table, yellow } from "./output.ts";

const statusColour = (status: string): string =>
  /fail|abandon|invalid|refused|cancel/.test(status)
    ? red(status)
    : /published|registered|succeeded|valid|complete/.test(status)
      ? green(status)
      : yellow(status);

export function renderRun(run: RunDetail): string {
  const lines = [
    `${bold(`run ${run.run_id}`)}  ${run.run_type}  created ${run.created_at}`,
    `status    execution ${statusColour(run.execution_status)} · ` +
      `capture ${statusColour(run.capture_status)} · ` +
      `extraction ${statusColour(run.extraction_status)} · ` +
      `validation ${statusColour(run.validation_status)}`,
  ];
  if (run.error)
    lines.push(`${red("error")}     ${run.error.code}: ${safeText(run.error.message)}`);
  if (run.execution?.workload)
    lines.push(
      `workload  ` +
        safeText(
          (run.execution.workload as { name?: string }).name ??
            JSON.stringify(run.execution.workload),
        ),
    );
  if (run.registrations.length > 0) {
    lines.push("", "artifacts");
    lines.push(
      table(
        run.registrations.map((r) => [
          `  ${r.artifact_id.slice(0, 19)}`,
          safeText(r.display_name),
          r.kind,
          r.role,
          r.producer ? safeText(r.producer) : "",
        ]),
      ),
    );
  }
  if (run.generation_ids.length > 0) lines.push("", `generations ${run.generation_ids.join(", ")}`);
  for (const l of run.limitations)
    lines.push(`${yellow("limitation")} ${l.code}: ${safeText(l.message)}`);
  if (run.registrations.some((r) => r.kind === "process_output"))
    lines.push("", dim(`stdout/stderr: flameox runs logs ${run.run_id}`));
  return lines.join("\n");
}

export function renderArtifact(artifact: ArtifactDetail): string {
  const lines = [
    bold(`artifact ${artifact.artifact_id}`),
    `size      ${formatBytes(artifact.byte_length)} (${artifact.byte_length} bytes)`,
    `kinds     ${artifact.kinds.join(", ") || "-"}    ` +
      `sensitivity ${artifact.effective_sensitivity}`,
    `created   ${artifact.created_at}`,
    "",
    `registrations (${artifact.registration_count}` +
      (artifact.registrations_truncated ? `, first ${artifact.registrations.length} shown` : "") +
      `)`,
    table(
      artifact.registrations.map((r) => [
        `  ${safeText(r.display_name)}`,
        r.run_id,
        r.kind,
        r.producer ? safeText(r.producer) : "",
        r.registered_at,
      ]),
    ),
  ];
  if (artifact.generation_ids.length > 0)
    lines.push("", `generations ${artifact.generation_ids.join(", ")}`);
  lines.push(
    `analyses  ${artifact.supported_analyses.join(", ") || "none (no evidence extracted)"}`,
  );
  return lines.join("\n");
}

export function renderRunLogs(logs: RunLogs): string {
  if (logs.streams.length === 0)
    return `run ${logs.run_id} stored no stdout or stderr (only captures do)`;
  return logs.streams
    .map((s) => {
      const head = dim(
        `── ${s.role} (${formatBytes(s.byte_length)}` +
          (s.truncated
            ? `, first ${formatBytes(new TextEncoder().encode(s.text).length)} shown`
            : "") +
          `) ──`,
      );
      return `${head}\n${safeText(s.text).replace(/\n$/, "")}`;
    })
    .join("\n");
}
