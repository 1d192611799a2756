/**
 * Runs Debian's pytest (python3-pytest) on fixtures/pytest-project, whose conftest.py writes
 * pytest-reportlog JSONL to the file named by REPORTLOG. Tests that need it skip (and say
 * so) on a host without /usr/bin/python3 and pytest.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers.ts";

const PYTHON = "/usr/bin/python3";
export const hasPytest =
  existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import pytest"]).status === 0;

/** The reportlog bytes of one run; `FLAKY_PASS=1` in env makes test_flaky pass. */
export function runPytestProject(out: string, env: Record<string, string> = {}): Uint8Array {
  return runPytestProjectWithOutput(out, env).reportlog;
}

/** The reportlog and pytest's own terminal output (its summary is an independent count). */
export function runPytestProjectWithOutput(
  out: string,
  env: Record<string, string> = {},
  extraArgs: string[] = [],
): { reportlog: Uint8Array; stdout: string } {
  const project = join(REPO, "fixtures", "pytest-project");
  const result = spawnSync(
    PYTHON,
    ["-m", "pytest", "-q", "-p", "no:cacheprovider", ...extraArgs, project],
    {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        REPORTLOG: out,
        PYTHONDONTWRITEBYTECODE: "1",
        ...env,
      },
      encoding: "utf8",
    },
  );
  // Exit 1 means some tests failed, which the project does on purpose.
  if (![0, 1].includes(result.status ?? -1))
    throw new Error(`pytest failed to run (${result.status}): ${result.stderr}${result.stdout}`);
  return { reportlog: new Uint8Array(readFileSync(out)), stdout: result.stdout };
}
