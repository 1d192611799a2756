/**
 * pytest-reportlog JSONL: the corpus files (written by pytest 9 with the real plugin) and a
 * run of Debian's pytest on fixtures/pytest-project. pytest-reportlog itself is not
 * packaged for Debian, so that project's conftest.py writes the same records with the
 * plugin's hooks and pytest's own report serialisation. Every figure is checked against
 * a reading of the raw lines made here, independently of the adapter.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { isFlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { REPO, tempDir } from "../helpers.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";
import { pytestReportlogAdapter } from "../../src/adapters/pytest-reportlog/adapter.ts";
import { hasPytest, runPytestProject } from "./pytest-project.ts";
import { extracted } from "./adapter-harness.ts";

const enc = new TextEncoder();

async function extract(
  bytes: Uint8Array,
  limits = DEFAULT_ADAPTER_LIMITS,
): Promise<NormalizedEvidence> {
  const adapter = detectAdapter({ head: headOf(bytes), displayName: "reportlog.jsonl" });
  expect(adapter?.name).toBe("pytest-reportlog");
  return await extracted(adapter!, { bytes, displayName: "reportlog.jsonl", limits });
}

type Raw = Record<string, unknown>;
const rawLines = (bytes: Uint8Array): Raw[] =>
  new TextDecoder()
    .decode(bytes)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Raw);

/** pytest's terminal words for a phase report, computed from the raw record. */
function expectedOutcome(r: Raw): string {
  if (r.wasxfail !== undefined) return r.outcome === "skipped" ? "xfailed" : "xpassed";
  if (r.outcome === "failed") return r.when === "call" ? "failed" : "error";
  return r.outcome as string;
}

async function checkAgainstRaw(bytes: Uint8Array): Promise<NormalizedEvidence> {
  const evidence = await extract(bytes);
  const raw = rawLines(bytes);
  const rows = rowsOf(evidence.tables.test_results);
  const tests = raw.filter(
    (r) => r.$report_type === "TestReport" || r.$report_type === "SubTestReport",
  );
  const testRows = rows.filter((r) => r.record_kind === "test" || r.record_kind === "subtest");
  expect(testRows.length).toBe(tests.length);
  tests.forEach((r, i) => {
    const row = testRows[i]!;
    expect(row.node_id).toBe(r.nodeid as string);
    expect(row.phase).toBe(r.when as string);
    expect(row.outcome).toBe(expectedOutcome(r));
    expect(row.duration_ns).toBe(Math.round((r.duration as number) * 1e9));
    const loc = r.location as [string, number, string];
    expect(row.file).toBe(loc[0]);
    expect(row.line).toBe(loc[1] + 1);
    expect(row.test_name).toBe(loc[2]);
    const crash = (r.longrepr as { reprcrash?: { message: string; lineno: number } } | null)
      ?.reprcrash;
    if (crash) {
      expect(row.message).toBe(crash.message.slice(0, 2048));
      expect(row.crash_line).toBe(crash.lineno);
    }
  });
  expect(rows.filter((r) => r.record_kind === "collect").length).toBe(
    raw.filter((r) => r.$report_type === "CollectReport").length,
  );
  expect(rows.filter((r) => r.record_kind === "warning").length).toBe(
    raw.filter((r) => r.$report_type === "WarningMessage").length,
  );
  expect(evidence.producerVersion).toBe((raw[0]!.pytest_version as string) ?? null);
  expect(evidence.summary.exit_status).toBe(
    raw.find((r) => r.$report_type === "SessionFinish")!.exitstatus as number,
  );
  expect(evidence.limitations).toEqual([]);
  return evidence;
}

describe("pytest-reportlog corpus", () => {
  for (const file of corpusFiles("pytest-reportlog")) {
    test(`${file.name}: every record imported as pytest reported it`, async () => {
      await checkAgainstRaw(loadPayload(file.path));
    });
  }

  test("exception types come from the traceback; skips keep their reason and place", async () => {
    const file = corpusFiles("pytest-reportlog").find((f) => f.name.includes("reportlog-1.0.0"))!;
    const rows = rowsOf((await extract(loadPayload(file.path))).tables.test_results);
    const failing = rows.find(
      (r) => r.node_id === "test_calc.py::test_fail_with_output" && r.phase === "call",
    )!;
    expect(failing.exception_type).toBe("AssertionError");
    const setupError = rows.find(
      (r) => r.node_id === "test_calc.py::test_error_in_setup" && r.phase === "setup",
    )!;
    expect([setupError.outcome, setupError.exception_type, setupError.message]).toEqual([
      "error",
      "RuntimeError",
      "RuntimeError: fixture setup error",
    ]);
    const skipped = rows.find(
      (r) => r.node_id === "test_calc.py::test_skipped" && r.phase === "setup",
    )!;
    expect([skipped.outcome, skipped.message, skipped.crash_line]).toEqual([
      "skipped",
      "Skipped: demonstrates skip",
      20,
    ]);
  });
});

describe("pytest-reportlog edge cases", () => {
  const file = () =>
    loadPayload(
      corpusFiles("pytest-reportlog").find((f) => f.name.includes("reportlog-1.0.0"))!.path,
    );

  test("a cut last line keeps the complete lines and says the evidence is partial", async () => {
    const whole = file();
    const text = new TextDecoder().decode(whole);
    const lines = text.trimEnd().split("\n");
    const cut = lines.slice(0, -3).join("\n") + "\n" + lines.at(-3)!.slice(0, 40);
    const evidence = await extract(enc.encode(cut));
    const complete = rawLines(enc.encode(lines.slice(0, -3).join("\n"))).filter(
      (r) => r.$report_type !== "SessionStart",
    ).length;
    expect(evidence.tables.test_results.rowCount).toBe(complete);
    expect(evidence.limitations.map((l) => l.code)).toEqual(["truncated_last_line"]);
  });

  test("a file that simply stops (no SessionFinish) is flagged", async () => {
    const lines = new TextDecoder().decode(file()).trimEnd().split("\n");
    const evidence = await extract(enc.encode(lines.slice(0, -1).join("\n") + "\n"));
    expect(evidence.limitations.map((l) => l.code)).toEqual(["session_not_finished"]);
  });

  test("unknown report types are skipped and counted", async () => {
    const extra = [
      '{"$report_type": "FutureReport", "x": 1}',
      '{"$report_type": "FutureReport"}',
      '{"$report_type": "Other"}',
    ].join("\n");
    const evidence = await extract(enc.encode(new TextDecoder().decode(file()) + extra + "\n"));
    const unknown = evidence.limitations.find((l) => l.code === "unknown_report_types")!;
    expect(unknown.count).toBe(3);
    expect(evidence.summary.unknown_records).toBe(3);
    expect(evidence.tables.test_results.rowCount).toBe(
      (await extract(file())).tables.test_results.rowCount,
    );
  });

  test(
    "a bad line before the end, a non-object record and an empty file are typed parse " +
      "failures",
    async () => {
      const lines = new TextDecoder().decode(file()).split("\n");
      const broken = [lines[0], "{not json", ...lines.slice(1)].join("\n");
      for (const bytes of [
        enc.encode(broken),
        enc.encode('{"$report_type": "SessionStart"}\n[1,2]\n{"$report_type": "SessionFinish"}\n'),
        enc.encode('{"$report_type": "SessionStart"'),
      ]) {
        const adapter = detectAdapter({ head: headOf(bytes), displayName: "x" })!;
        let error: unknown;
        try {
          await extracted(adapter, { bytes, displayName: "x", limits: DEFAULT_ADAPTER_LIMITS });
        } catch (e) {
          error = e;
        }
        expect(isFlameoxError(error, "ARTIFACT_PARSE_FAILED")).toBe(true);
      }
    },
  );

  test(
    "more records than the limit is ARTIFACT_TOO_LARGE; long messages are cut and " + "flagged",
    async () => {
      let error: unknown;
      try {
        await extract(file(), { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 5 });
      } catch (e) {
        error = e;
      }
      expect(isFlameoxError(error, "ARTIFACT_TOO_LARGE")).toBe(true);
      const long = JSON.stringify({
        nodeid: "t.py::t",
        location: ["t.py", 0, "t"],
        keywords: {},
        outcome: "failed",
        when: "call",
        duration: 0.1,
        longrepr: "E   ValueError: " + "x".repeat(10_000),
        $report_type: "TestReport",
      });
      const rows = rowsOf((await extract(enc.encode(long + "\n"))).tables.test_results);
      expect([
        (rows[0]!.message as string).length,
        rows[0]!.truncated,
        rows[0]!.exception_type,
      ]).toEqual([2048, true, "ValueError"]);
    },
  );
});

describe("pytest-reportlog streamed", () => {
  const outcome = async (bytes: Uint8Array, chunkSize: number, limits = DEFAULT_ADAPTER_LIMITS) => {
    try {
      const run = await runStream(pytestReportlogAdapter, bytes, { chunkSize, limits });
      return {
        rows: streamedTableRows(run, "test_results"),
        limitations: run.evidence.limitations,
        summary: run.evidence.summary,
        producer: run.evidence.producerVersion,
      };
    } catch (error) {
      return { error: `${(error as { code?: string }).code}: ${(error as Error).message}` };
    }
  };
  const whole = async (bytes: Uint8Array, limits = DEFAULT_ADAPTER_LIMITS) => {
    try {
      const e = await extracted(pytestReportlogAdapter, { bytes, displayName: "case", limits });
      return {
        rows: bufferRows(e.tables.test_results),
        limitations: e.limitations,
        summary: e.summary,
        producer: e.producerVersion,
      };
    } catch (error) {
      return { error: `${(error as { code?: string }).code}: ${(error as Error).message}` };
    }
  };

  test(
    "chunk by chunk, every corpus file and every edge case gives the rows, limitations and " +
      "errors of the whole file",
    async () => {
      const files = corpusFiles("pytest-reportlog").map((f) => loadPayload(f.path));
      const text = new TextDecoder().decode(files[0]!);
      const lines = text.trimEnd().split("\n");
      const cases = [
        ...files,
        enc.encode(lines.slice(0, -3).join("\n") + "\n" + lines.at(-3)!.slice(0, 40)),
        enc.encode(lines.slice(0, -1).join("\r\n") + "\r\n\r\n\n"),
        enc.encode(text.trimEnd()),
        enc.encode([lines[0], "{not json", ...lines.slice(1)].join("\n")),
        enc.encode('{"$report_type": "SessionStart"'),
        enc.encode(""),
      ];
      for (const bytes of cases) {
        const expected = await whole(bytes);
        for (const chunkSize of [1, 7, 4096, 1 << 20])
          expect(await outcome(bytes, chunkSize)).toEqual(expected);
      }
      expect(await outcome(files[0]!, 13, { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 5 })).toEqual(
        await whole(files[0]!, { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 5 }),
      );
    },
  );

  test("rows reach the sink in bounded batches, numbered across them", async () => {
    const record = (i: number) =>
      JSON.stringify({
        nodeid: `t.py::t${i}`,
        location: ["t.py", i, `t${i}`],
        keywords: {},
        outcome: "passed",
        when: "call",
        duration: 0.001,
        $report_type: "TestReport",
      });
    const bytes = enc.encode(Array.from({ length: 40_000 }, (_, i) => record(i)).join("\n") + "\n");
    const run = await runStream(pytestReportlogAdapter, bytes);
    const sizes = run.batches.map((b) => b.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(16384);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40_000);
    expect(streamedTableRows(run, "test_results").map((r) => Number(r.result_index))).toEqual(
      Array.from({ length: 40_000 }, (_, i) => i),
    );
  });
});

describe("real pytest run", () => {
  test.skipIf(!hasPytest)(
    "pass, fail, setup error, skip, xfail, warning and user properties import as pytest " +
      "reported them",
    async () => {
      const dir = tempDir();
      try {
        const evidence = await checkAgainstRaw(runPytestProject(join(dir.path, "reportlog.jsonl")));
        const rows = rowsOf(evidence.tables.test_results);
        const call = (name: string) =>
          rows.find((r) => r.node_id === `test_sample.py::${name}` && r.phase === "call");
        expect(call("test_passes")!.outcome).toBe("passed");
        expect(JSON.parse(call("test_passes")!.properties_json as string)).toEqual({
          user_properties: [["ticket", "T-1"]],
        });
        expect([call("test_fails")!.outcome, call("test_fails")!.exception_type]).toEqual([
          "failed",
          "AssertionError",
        ]);
        expect(call("test_value_error[7]")!.exception_type).toBe("ValueError");
        expect(call("test_xfail")!.outcome).toBe("xfailed");
        expect(
          rows.find((r) => r.node_id === "test_sample.py::test_setup_error" && r.phase === "setup")!
            .outcome,
        ).toBe("error");
        expect(
          rows.find((r) => r.node_id === "test_sample.py::test_skipped" && r.phase === "setup")!
            .outcome,
        ).toBe("skipped");
        const warning = rows.find((r) => r.record_kind === "warning")!;
        expect([warning.exception_type, warning.message]).toEqual([
          "UserWarning",
          "a user warning",
        ]);
        // `def test_passes` is on line 11 of the file (1-based).
        const source = readFileSync(
          join(REPO, "fixtures", "pytest-project", "test_sample.py"),
          "utf8",
        ).split("\n");
        expect(source[(call("test_passes")!.line as number) - 1]).toStartWith("def test_passes");
      } finally {
        dir.cleanup();
      }
    },
  );
});
