/**
 * `coverage json` reports (coverage.py 5 and later): per file the executed, missing and
 * excluded lines, with `show_contexts` the contexts of each executed line, with branch
 * coverage the executed and missing arcs, and since coverage.py 7 the same per function.
 * Executed and missing statements become `coverage_lines` rows (executed true / false),
 * arcs likewise; excluded lines are not statements and are only counted.
 */
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { CoverageLineWriter } from "../coverage-lines/row-writer.ts";
import { expectationFailed, isPlainObject, parseJsonPayload } from "../json-guard.ts";
import { coverageJsonDescription } from "./description.ts";

const NAME = coverageJsonDescription.name;
const VERSION = coverageJsonDescription.version;
const LABEL = "coverage.py JSON report";

function lineList(value: unknown, field: string): number[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw expectationFailed(LABEL, field, "an array of line numbers", value);
  return value as number[];
}

function arcList(value: unknown, field: string): [number, number][] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw expectationFailed(LABEL, field, "an array of [from, to] pairs", value);
  return value.map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      throw expectationFailed(LABEL, `an arc of ${field}`, "a [from, to] pair", pair);
    return pair as [number, number];
  });
}

export function extractCoverageJson(input: ExtractInput): NormalizedEvidence {
  const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, LABEL);
  if (!isPlainObject(value)) throw expectationFailed(LABEL, "the report", "an object", value);
  const meta = value.meta;
  const files = value.files;
  if (!isPlainObject(meta)) throw expectationFailed(LABEL, "meta", "an object", meta);
  if (!isPlainObject(files)) throw expectationFailed(LABEL, "files", "an object", files);
  const tables = emptyTables();
  const out = new CoverageLineWriter(tables.coverage_lines, LABEL, input.limits.maxEvents);
  const limitations: Limitation[] = [];
  let excluded = 0;
  let withContexts = 0;
  for (const path of Object.keys(files).sort()) {
    const f = files[path];
    if (!isPlainObject(f))
      throw expectationFailed(LABEL, `files[${JSON.stringify(path)}]`, "an object", f);
    // Functions (coverage.py 7): each statement's enclosing function; "" is module level.
    const functionOf = new Map<number, string>();
    if (isPlainObject(f.functions)) {
      for (const [name, region] of Object.entries(f.functions)) {
        if (name === "" || !isPlainObject(region)) continue;
        for (const line of [
          ...lineList(region.executed_lines, `${path} ${name} executed_lines`),
          ...lineList(region.missing_lines, `${path} ${name} missing_lines`),
        ])
          functionOf.set(line, name);
      }
    }
    const contexts = isPlainObject(f.contexts) ? f.contexts : null;
    if (contexts) withContexts += 1;
    for (const line of lineList(f.executed_lines, `${path} executed_lines`)) {
      const names = contexts ? contexts[String(line)] : undefined;
      const list = Array.isArray(names) && names.length > 0 ? names.map(String) : [null];
      for (const context of list)
        out.add({
          file: path,
          kind: "line",
          line,
          context,
          executed: true,
          function: functionOf.get(line) ?? null,
        });
    }
    for (const line of lineList(f.missing_lines, `${path} missing_lines`))
      out.add({
        file: path,
        kind: "line",
        line,
        executed: false,
        function: functionOf.get(line) ?? null,
      });
    excluded += lineList(f.excluded_lines, `${path} excluded_lines`).length;
    for (const [from, to] of arcList(f.executed_branches, `${path} executed_branches`))
      out.add({
        file: path,
        kind: "arc",
        line: from,
        to_line: to,
        executed: true,
        function: functionOf.get(from) ?? null,
      });
    for (const [from, to] of arcList(f.missing_branches, `${path} missing_branches`))
      out.add({
        file: path,
        kind: "arc",
        line: from,
        to_line: to,
        executed: false,
        function: functionOf.get(from) ?? null,
      });
  }
  if (
    meta.branch_coverage === true &&
    out.rows > 0 &&
    !Object.values(files).some((f) => isPlainObject(f) && "executed_branches" in f)
  ) {
    limitations.push({
      code: "branches_not_listed",
      message:
        "The report was made with branch coverage but lists no arcs; only line coverage is " +
        "available",
    });
  }
  const totals = isPlainObject(value.totals) ? value.totals : {};
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: "coverage.py",
    producerVersion: typeof meta.version === "string" ? meta.version : null,
    tables,
    limitations,
    summary: {
      files: Object.keys(files).length,
      coverage_lines: out.rows,
      excluded_lines: excluded,
      branch_coverage: meta.branch_coverage === true,
      files_with_contexts: withContexts,
      covered_lines: typeof totals.covered_lines === "number" ? totals.covered_lines : null,
      num_statements: typeof totals.num_statements === "number" ? totals.num_statements : null,
    },
  };
}

export const coverageJsonAdapter: ProducerAdapter = {
  ...coverageJsonDescription,
  extract: extractCoverageJson,
};
