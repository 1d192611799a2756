/**
 * Test-report benchmark. Generates, deterministically, a pytest-reportlog file of N tests
 * (default 200,000; setup/call/teardown each, 5% failing with a traceback, 2% skipped) and
 * prints: end-to-end import time and peak RSS of the CLI process (file to committed
 * generation), `analyze failures` latency over it, and a plain per-line `JSON.parse` of the
 * same bytes measured in the same run as the baseline. Figures only; nothing asserts a time.
 *
 *   bun bench/test-report-bench.ts [--tests 200000] [--keep]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { measureProcess, workerPeak } from "./measure-process.ts";

const { values } = parseArgs({
  options: {
    tests: { type: "string", default: "200000" },
    keep: { type: "boolean", default: false },
  },
});
const TESTS = Number(values.tests);
const MB = 1024 * 1024;
const cliPath = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));

function reportlog(tests: number): string {
  const lines: string[] = [
    JSON.stringify({ pytest_version: "9.0.3", $report_type: "SessionStart" }),
  ];
  for (let i = 0; i < tests; i++) {
    const file = `tests/test_mod${i % 400}.py`;
    const nodeid = `${file}::test_case_${i}`;
    const base = {
      nodeid,
      location: [file, (i * 7) % 900, `test_case_${i}`],
      keywords: { [`test_case_${i}`]: 1, [file]: 1, proj: 1 },
      user_properties: [],
      sections: [],
      $report_type: "TestReport",
    };
    const fail = i % 20 === 0;
    const skip = i % 50 === 1;
    lines.push(
      JSON.stringify({
        ...base,
        when: "setup",
        outcome: skip ? "skipped" : "passed",
        longrepr: skip ? [file, 3, "Skipped: slow"] : null,
        duration: 0.0001,
      }),
    );
    if (!skip) {
      const longrepr = fail
        ? {
            reprcrash: {
              path: `/src/${file}`,
              lineno: 40 + (i % 3),
              message: `ValueError: bad value ${i} at 0x${(i * 4099).toString(16)}`,
            },
            reprtraceback: {
              reprentries: [
                {
                  type: "ReprEntry",
                  data: {
                    lines: [
                      "    def test():",
                      ">       raise ValueError(...)",
                      `E       ValueError: bad value ${i}`,
                    ],
                    reprfileloc: { path: file, lineno: 40, message: "ValueError" },
                  },
                },
              ],
            },
          }
        : null;
      lines.push(
        JSON.stringify({
          ...base,
          when: "call",
          outcome: fail ? "failed" : "passed",
          longrepr,
          duration: 0.001 + (i % 13) / 1000,
        }),
      );
    }
    lines.push(
      JSON.stringify({
        ...base,
        when: "teardown",
        outcome: "passed",
        longrepr: null,
        duration: 0.0001,
      }),
    );
  }
  lines.push(JSON.stringify({ exitstatus: 1, $report_type: "SessionFinish" }));
  return lines.join("\n") + "\n";
}

const measure = (argv: string[]) => measureProcess(argv, dir);

try {
  const path = join(dir, "reportlog.jsonl");
  writeFileSync(path, reportlog(TESTS));
  const bytes = statSync(path).size;
  const text = await Bun.file(path).text();
  const parseStart = performance.now();
  let records = 0;
  for (const line of text.split("\n")) if (line !== "") JSON.parse(line), records++;
  const parseMs = performance.now() - parseStart;
  await measure([process.execPath, cliPath, "init", dir, "--json"]);
  const imported = await measure([process.execPath, cliPath, "import", path, "--json"]);
  const artifact = JSON.parse(imported.stdout).artifact_id as string;
  const failures = await measure([
    process.execPath,
    cliPath,
    "analyze",
    "failures",
    artifact,
    "--json",
  ]);
  const result = JSON.parse(failures.stdout);
  console.log(
    `pytest-reportlog: ${TESTS} tests, ${records} records, ${(bytes / MB).toFixed(0)} MB`,
  );
  console.log(`  JSON.parse per line (baseline, in process): ${parseMs.toFixed(0)} ms`);
  console.log(
    `  import (CLI process, file to committed generation): ${imported.wallMs.toFixed(0)} ms, ` +
      `peak RSS ${(imported.maxRss / MB).toFixed(0)} MB (maxRSS, which Linux raises to this ` +
      `benchmark's own size at the spawn), parse worker's own ` +
      `peak ${(workerPeak(imported.stdout) / MB).toFixed(0)} MB`,
  );
  console.log(
    `  analyze failures: ${failures.wallMs.toFixed(0)} ms, peak ` +
      `RSS ${(failures.maxRss / MB).toFixed(0)} ` +
      `MB; ${JSON.stringify(result.populations[0].by_outcome)}, ${result.total} clusters`,
  );
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
