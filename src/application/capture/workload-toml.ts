/**
 * Surgical edits of `flameox.toml` text: a workload's own tables (`[workloads.NAME]` and
 * `[workloads.NAME.*]`) are replaced or appended; every other byte, comments included,
 * stays as it was. Comment lines directly above the next table belong to that table and
 * are kept. The result is verified by parsing: it must equal the old document with
 * exactly that one workload changed, or the edit is refused.
 */
import { stringify } from "smol-toml";
import { canonicalJson } from "../../domain/canonical-digest.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { parseProjectConfig, type ProjectConfig } from "../../domain/workload/project-config.ts";
import type { WorkloadSpec } from "../../domain/workload/workload-schema.ts";

const TABLE_HEADER = /^\s*\[/;
const WORKLOAD_HEADER =
  /^\s*\[\s*workloads\s*\.\s*(?:"([^"\\]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$/;
const TRIVIA = /^\s*(?:#.*)?$/;
const isTrivia = (line: string | undefined) =>
  line === undefined || TRIVIA.test(line.replace(/\r?\n$/, ""));

/** The TOML tables of one workload, as flameox writes them. */
export function workloadBlock(name: string, spec: WorkloadSpec): string {
  return stringify({ workloads: { [name]: spec } }).replace(/\n*$/, "\n");
}

/** Replaces (or, when absent, appends) the tables of workload `name`, then verifies the result. */
export function editWorkload(
  text: string,
  before: ProjectConfig | null,
  name: string,
  spec: WorkloadSpec,
): { text: string; config: ProjectConfig } {
  const lines = text.split(/(?<=\n)/);
  const spans = workloadSpans(lines, name);
  const block = workloadBlock(name, spec);
  let next: string;
  if (spans.length === 0) {
    const body =
      text.length === 0
        ? ""
        : text.endsWith("\n\n")
          ? text
          : text.endsWith("\n")
            ? `${text}\n`
            : `${text}\n\n`;
    next = body + block;
  } else {
    const out: string[] = [];
    let cursor = 0;
    spans.forEach(([start, end], i) => {
      // Blank lines that only separated a later table of this workload go with it.
      let from = start;
      if (i > 0) while (from > cursor && lines[from - 1]!.trim() === "") from -= 1;
      out.push(...lines.slice(cursor, from));
      if (i === 0) out.push(block, ...(end < lines.length && !isTrivia(lines[end]) ? ["\n"] : []));
      cursor = end;
    });
    out.push(...lines.slice(cursor));
    next = out.join("");
  }
  return { text: next, config: verify(next, before, name, spec) };
}

/** [start, end) line ranges of the tables of workload `name`. */
function workloadSpans(lines: string[], name: string): [number, number][] {
  const headers = lines.flatMap((line, i) => (TABLE_HEADER.test(line) ? [i] : []));
  const spans: [number, number][] = [];
  headers.forEach((start, h) => {
    const match = WORKLOAD_HEADER.exec(lines[start]!.replace(/\r?\n$/, ""));
    if (!match || (match[1] ?? match[2] ?? match[3]) !== name) return;
    let end = headers[h + 1] ?? lines.length;
    // Comments and blank lines at the end belong to what follows (the next table, or the file's
    // end).
    while (end > start + 1 && isTrivia(lines[end - 1])) end -= 1;
    spans.push([start, end]);
  });
  return spans;
}

function verify(
  text: string,
  before: ProjectConfig | null,
  name: string,
  spec: WorkloadSpec,
): ProjectConfig {
  const parsed = parseProjectConfig(text);
  const expected = { ...(before?.document ?? {}) } as Record<string, unknown>;
  expected.workloads = { ...((expected.workloads as Record<string, unknown>) ?? {}), [name]: spec };
  if (!parsed.ok || canonicalJson(parsed.config.document) !== canonicalJson(expected)) {
    throw new FlameoxError(
      "CONFIGURATION_INVALID",
      `Cannot edit flameox.toml surgically: workload ${name} is not written only as ` +
        `[workloads.${name}] tables (dotted keys or inline tables elsewhere), so a safe edit ` +
        `is not possible`,
      {
        remediation: [
          `Edit [workloads.${name}] in flameox.toml by hand, or rewrite it as ` +
            `[workloads.${name}] tables once`,
        ],
      },
    );
  }
  return parsed.config;
}
