/**
 * Runs Debian's coverage.py (python3-coverage) with pytest on fixtures/coverage-project:
 * branch measurement and a dynamic context per test, then `coverage json --show-contexts`
 * and `coverage xml` from the same data. Tests that need it skip, and say so, on a host
 * without /usr/bin/python3, coverage and pytest.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers.ts";

const PYTHON = "/usr/bin/python3";
export const hasCoverage =
  existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import coverage, pytest"]).status === 0;
export const NO_COVERAGE_REASON =
  `needs ${PYTHON} with coverage and pytest ` + "(Debian python3-coverage, python3-pytest)";

export interface CoverageRun {
  dir: string;
  data: Uint8Array;
  json: Uint8Array;
  xml: Uint8Array;
  /**
   * coverage.py's own reading of the data file: CoverageData.lines / arcs / contexts per measured
   * file.
   */
  api: {
    files: Record<string, { lines: number[]; arcs: [number, number][] }>;
    contexts: string[];
    by_context: Record<string, Record<string, number[]>>;
    has_arcs: boolean;
  };
}

function python(dir: string, args: string[], env: Record<string, string> = {}): string {
  const result = spawnSync(PYTHON, args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      PYTHONDONTWRITEBYTECODE: "1",
      COVERAGE_RCFILE: join(dir, ".coveragerc"),
      ...env,
    },
    encoding: "utf8",
  });
  if (result.status !== 0)
    throw new Error(
      `${args.join(" ")} failed (${result.status}): ${result.stderr}${result.stdout}`,
    );
  return result.stdout;
}

const READ_API = `
import json, sys, coverage
data = coverage.CoverageData(basename=sys.argv[1]); data.read()
out = {f: {"lines": sorted(data.lines(f) or []), "arcs": sorted(data.arcs(f) or [])} for f in \
data.measured_files()}
contexts = sorted(data.measured_contexts())
by_context = {}
for c in contexts:
    data.set_query_contexts(["^" + c.replace(".", "[.]") + "$"])
    by_context[c] = {f: sorted(data.lines(f) or []) for f in data.measured_files() if data.lines(f)}
print(json.dumps({"files": out, "contexts": contexts, "by_context": by_context, "has_arcs": \
data.has_arcs()}))
`;

/** One measured pytest run in a copy of the project under `dir`. */
export function runCoverageProject(dir: string, env: Record<string, string> = {}): CoverageRun {
  cpSync(join(REPO, "fixtures", "coverage-project"), dir, { recursive: true });
  writeFileSync(
    join(dir, ".coveragerc"),
    "[run]\nbranch = True\ndynamic_context = test_function\nsource = .\n",
  );
  python(
    dir,
    [
      "-m",
      "coverage",
      "run",
      "--data-file=run.coverage",
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      ".",
    ],
    env,
  );
  python(dir, [
    "-m",
    "coverage",
    "json",
    "--data-file=run.coverage",
    "--show-contexts",
    "-o",
    "report.json",
  ]);
  python(dir, ["-m", "coverage", "xml", "--data-file=run.coverage", "-o", "coverage.xml"]);
  const api = JSON.parse(python(dir, ["-c", READ_API, join(dir, "run.coverage")]));
  const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
  return {
    dir,
    data: read("run.coverage"),
    json: read("report.json"),
    xml: read("coverage.xml"),
    api,
  };
}
