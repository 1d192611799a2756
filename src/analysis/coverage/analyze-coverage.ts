/**
 * The execution-coverage recipe over the `coverage_lines` of a run or artifact:
 *  - per file, the distinct lines executed and, where the evidence knows which statements
 *    exist (a coverage json or Cobertura report), the total and the percentage; a
 *    coverage.py data file records only what ran, so its files have no total;
 *  - with a base run, the diff: lines newly executed and no longer executed, per file and,
 *    where the evidence names functions, per function.
 * Lines are counted once whatever the number of contexts or artifacts that executed them.
 * Files are matched by the path the producer wrote (a data file's absolute paths and a
 * report's relative ones are different files). Read straight from Parquet (no engine).
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { CommitEntry } from "../../storage/corpus-records.ts";
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { type AnalysisResult, distinctLimitations, resultBase } from "../analysis-result.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { PartCache } from "../evidence-parts.ts";
import { boolCells, int32Cells, stringCells } from "./coverage-columns.ts";
import type { Subject } from "../subject.ts";

export const COVERAGE_RECIPE_VERSION = "1";
/** Line numbers listed per file and direction; the counts are always complete. */
const MAX_LISTED_LINES = 200;
const MAX_FUNCTIONS = 50;
/**
 * A generation with this limitation lists executed lines only: its files have no statement total.
 */
const EXECUTED_ONLY = "executed_lines_only";

export interface FunctionChange {
  function: string;
  newly_executed: number;
  no_longer_executed: number;
}

export interface CoverageFile {
  file: string;
  lines_executed: number;
  /**
   * Statements the evidence knows (executed or not); null when only executed lines are recorded.
   */
  lines_total: number | null;
  percent_executed: number | null;
  arcs_executed: number;
  arcs_not_executed: number;
  /** Diff only (null without a base): the base run's figures and the lines that changed. */
  base_lines_executed: number | null;
  newly_executed: number | null;
  no_longer_executed: number | null;
  newly_executed_lines: number[] | null;
  no_longer_executed_lines: number[] | null;
  functions: FunctionChange[] | null;
}

export type CoverageResult = AnalysisResult<CoverageFile> & {
  base: { type: "run" | "artifact"; id: string } | null;
  totals: {
    files: number;
    lines_executed: number;
    /** Over the files whose statements are known; null when none are. */
    lines_total: number | null;
    files_without_total: number;
    newly_executed: number | null;
    no_longer_executed: number | null;
  };
};

interface FileLines {
  executed: Set<number>;
  statements: Set<number> | null;
  arcsExecuted: Set<string>;
  arcsMissing: Set<string>;
  functionOf: Map<number, string>;
}

const COLUMNS = ["file", "kind", "line", "to_line", "executed", "function"];

function coverageGenerations(subject: Subject): CommitEntry[] {
  return subject.generations.filter((g) => g.tables.coverage_lines !== undefined);
}

async function filesOf(
  snapshot: SnapshotHandle,
  generations: CommitEntry[],
  parts: PartCache,
): Promise<Map<string, FileLines>> {
  const files = new Map<string, FileLines>();
  for (const g of generations) {
    if ((g.tables.coverage_lines ?? 0) === 0) continue;
    const knowsStatements = !snapshot.manifest(g).limitations.some((l) => l.code === EXECUTED_ONLY);
    for (const part of await parts.partsOf(snapshot, "coverage_lines", [g], COLUMNS)) {
      const n = part.rows;
      const column = (name: string) => part.arrow.getChild(name);
      const paths = stringCells(column("file"), n);
      const kinds = stringCells(column("kind"), n);
      const functions = stringCells(column("function"), n);
      const lines = int32Cells(column("line"), n);
      const targets = int32Cells(column("to_line"), n);
      const executedCells = boolCells(column("executed"), n);
      let f: FileLines | undefined;
      let path: string | null = null;
      for (let i = 0; i < n; i++) {
        if (paths[i] !== path) {
          path = paths[i]!;
          f = files.get(path);
          if (!f)
            files.set(
              path,
              (f = {
                executed: new Set(),
                statements: null,
                arcsExecuted: new Set(),
                arcsMissing: new Set(),
                functionOf: new Map(),
              }),
            );
        }
        const line = lines[i]!;
        const executed = executedCells[i] === 1;
        if (kinds[i] === "arc") {
          (executed ? f!.arcsExecuted : f!.arcsMissing).add(`${line}>${targets[i]}`);
          continue;
        }
        if (executed) f!.executed.add(line);
        if (knowsStatements) (f!.statements ??= new Set()).add(line);
        const fn = functions[i];
        if (fn !== null && fn !== undefined && !f!.functionOf.has(line))
          f!.functionOf.set(line, fn);
      }
    }
  }
  // Executed arcs whose mirror was also listed missing elsewhere count as executed.
  for (const f of files.values()) for (const a of f.arcsExecuted) f.arcsMissing.delete(a);
  return files;
}

const sorted = (lines: Iterable<number>) => [...lines].sort((a, b) => a - b);

export async function analyzeCoverage(
  snapshot: SnapshotHandle,
  subject: Subject,
  base: Subject | null,
  options: { limit: number; cursor?: string | null },
  parts: PartCache = new PartCache(0),
): Promise<CoverageResult> {
  const binding = {
    query: `analyze_coverage@${COVERAGE_RECIPE_VERSION}`,
    filters: { subject: subject.id, base: base?.id ?? null },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const generations = coverageGenerations(subject);
  const baseGenerations = base ? coverageGenerations(base) : [];
  const result = resultBase(
    { name: "analyze_coverage", version: COVERAGE_RECIPE_VERSION, claimLevel: "observed" },
    snapshot,
    subject,
    [...generations, ...baseGenerations],
  );
  const limitations: Limitation[] = distinctLimitations([result.limitations]);
  const inputs = {
    ...result.inputs,
    run_ids: [...new Set([...subject.runIds, ...(base?.runIds ?? [])])],
    artifact_ids: [...new Set([...subject.artifactIds, ...(base?.artifactIds ?? [])])],
  };
  const current = await filesOf(snapshot, generations, parts);
  const previous = base ? await filesOf(snapshot, baseGenerations, parts) : null;

  const names = new Set([...current.keys(), ...(previous?.keys() ?? [])]);
  const all: CoverageFile[] = [];
  let newlyTotal = 0;
  let noLongerTotal = 0;
  for (const file of names) {
    const f = current.get(file);
    const executed = f?.executed ?? new Set<number>();
    const statements = f?.statements ? new Set([...f.statements, ...executed]) : null;
    const item: CoverageFile = {
      file,
      lines_executed: executed.size,
      lines_total: statements ? statements.size : null,
      percent_executed:
        statements && statements.size > 0
          ? Math.round((executed.size / statements.size) * 10000) / 100
          : null,
      arcs_executed: f?.arcsExecuted.size ?? 0,
      arcs_not_executed: f?.arcsMissing.size ?? 0,
      base_lines_executed: null,
      newly_executed: null,
      no_longer_executed: null,
      newly_executed_lines: null,
      no_longer_executed_lines: null,
      functions: null,
    };
    if (previous) {
      const before = previous.get(file)?.executed ?? new Set<number>();
      const newly = sorted([...executed].filter((l) => !before.has(l)));
      const gone = sorted([...before].filter((l) => !executed.has(l)));
      newlyTotal += newly.length;
      noLongerTotal += gone.length;
      const byFunction = new Map<string, FunctionChange>();
      const functionOf = (line: number) =>
        f?.functionOf.get(line) ?? previous.get(file)?.functionOf.get(line);
      const tally = (lines: number[], key: "newly_executed" | "no_longer_executed") => {
        for (const line of lines) {
          const name = functionOf(line);
          if (name === undefined) continue;
          let change = byFunction.get(name);
          if (!change)
            byFunction.set(
              name,
              (change = { function: name, newly_executed: 0, no_longer_executed: 0 }),
            );
          change[key] += 1;
        }
      };
      tally(newly, "newly_executed");
      tally(gone, "no_longer_executed");
      Object.assign(item, {
        base_lines_executed: before.size,
        newly_executed: newly.length,
        no_longer_executed: gone.length,
        newly_executed_lines: newly.slice(0, MAX_LISTED_LINES),
        no_longer_executed_lines: gone.slice(0, MAX_LISTED_LINES),
        functions: [...byFunction.values()]
          .sort(
            (a, b) =>
              b.newly_executed + b.no_longer_executed - (a.newly_executed + a.no_longer_executed) ||
              a.function.localeCompare(b.function),
          )
          .slice(0, MAX_FUNCTIONS),
      });
    }
    all.push(item);
  }
  if (previous)
    all.sort(
      (a, b) =>
        b.newly_executed! + b.no_longer_executed! - (a.newly_executed! + a.no_longer_executed!) ||
        a.file.localeCompare(b.file),
    );
  else all.sort((a, b) => a.file.localeCompare(b.file));
  if (
    all.some(
      (f) =>
        (f.newly_executed ?? 0) > MAX_LISTED_LINES ||
        (f.no_longer_executed ?? 0) > MAX_LISTED_LINES,
    )
  ) {
    limitations.push({
      code: "changed_lines_truncated",
      message:
        `Changed line numbers are listed up to ${MAX_LISTED_LINES} per file and direction; the ` +
        `counts are complete`,
    });
  }

  const known = all.filter((f) => f.lines_total !== null);
  const totals = {
    files: all.length,
    lines_executed: all.reduce((n, f) => n + f.lines_executed, 0),
    lines_total: known.length > 0 ? known.reduce((n, f) => n + f.lines_total!, 0) : null,
    files_without_total: all.length - known.length,
    newly_executed: previous ? newlyTotal : null,
    no_longer_executed: previous ? noLongerTotal : null,
  };
  const page = all.slice(offset, offset + options.limit);
  const end = offset + page.length;
  const missing =
    generations.length === 0 ? subject : base && baseGenerations.length === 0 ? base : null;
  const evidence = missing
    ? {
        status: "unavailable" as const,
        reason:
          `no_coverage: no imported coverage data (coverage.py data file, coverage json, ` +
          `Cobertura XML) for ${missing.id} in the pinned commit`,
        next_tool: "import_artifact",
      }
    : all.length === 0
      ? { status: "empty" as const, reason: "the coverage evidence holds no lines" }
      : {
          status: "available" as const,
          reason:
            `${totals.lines_executed} lines executed in ${totals.files} files` +
            (totals.lines_total !== null
              ? ` (${totals.lines_total} statements known in ${known.length} files)`
              : "") +
            (previous
              ? `; ${newlyTotal} newly executed, ${noLongerTotal} no longer executed ` +
                `against ${base!.id}`
              : ""),
        };
  return {
    ...result,
    inputs,
    limitations,
    evidence,
    items: page,
    total: all.length,
    returned: page.length,
    truncated: end < all.length,
    next_cursor: end < all.length ? encodeCursor(binding, end) : null,
    base: base ? { type: base.type, id: base.id } : null,
    totals,
  };
}
