/**
 * JUnit XML: every corpus report (pytest xunit1/xunit2, Surefire, a cut-short Surefire file,
 * Catch2, cargo-nextest, mocha's nested suites, Marathon's flaky retries, Perl) imported and
 * checked against counts taken here from the raw XML text (testcase elements, result
 * elements, the suite's own declared totals); hostile documents refused with typed errors.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { junitTimeToNs } from "../../src/adapters/junit-xml/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

const enc = new TextEncoder();

async function extract(bytes: Uint8Array): Promise<NormalizedEvidence> {
  const adapter = detectAdapter({ head: headOf(bytes), displayName: "report.xml" });
  expect(adapter?.name).toBe("junit-xml");
  return await extracted(adapter!, {
    bytes,
    displayName: "report.xml",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
}

async function refusal(xml: string): Promise<FlameoxError> {
  try {
    await extract(enc.encode(xml));
  } catch (e) {
    expect(e).toBeInstanceOf(FlameoxError);
    return e as FlameoxError;
  }
  throw new Error("expected the document to be refused");
}

const count = (xml: string, re: RegExp) => (xml.match(re) ?? []).length;

describe("JUnit XML corpus", () => {
  for (const file of corpusFiles("junit-xml")) {
    test(
      `${file.name}: one row per testcase (plus one per retry), outcomes as the XML ` + `says`,
      async () => {
        const xml = new TextDecoder().decode(loadPayload(file.path));
        const evidence = await extract(loadPayload(file.path));
        const rows = rowsOf(evidence.tables.test_results);
        const final = rows.filter((r) => r.outcome !== "rerun");
        expect(final.length).toBe(count(xml, /<testcase[\s>]/g));
        expect(rows.filter((r) => r.outcome === "rerun").length).toBe(
          count(xml, /<(flaky|rerun)(Failure|Error)[\s>]/g),
        );
        expect(final.filter((r) => r.outcome === "failed").length).toBe(
          count(xml, /<failure[\s>]/g),
        );
        expect(final.filter((r) => r.outcome === "error").length).toBe(count(xml, /<error[\s>]/g));
        expect(final.filter((r) => r.outcome === "skipped" || r.outcome === "xfailed").length).toBe(
          count(xml, /<skipped[\s>/]/g),
        );
        const cut = file.name.includes("Corrupt");
        expect(evidence.limitations.map((l) => l.code)).toEqual(cut ? ["truncated_document"] : []);
        // Durations: the testcase time attributes, in order, in ns.
        const times = [...xml.matchAll(/<testcase\b[^>]*?\btime="([^"]*)"/g)].map((m) =>
          Math.round(Number(m[1]!.replaceAll(",", "")) * 1e9),
        );
        expect(final.map((r) => r.duration_ns)).toEqual(times);
      },
    );
  }

  test(
    "pytest xunit2: the suite's declared totals; xfail, file/line (xunit1) and " +
      "exception types",
    async () => {
      const xunit2 = corpusFiles("junit-xml").find((f) => f.name.includes("xunit2"))!;
      const xml = new TextDecoder().decode(loadPayload(xunit2.path));
      const declared =
        /<testsuite [^>]*errors="(\d+)" failures="(\d+)" skipped="(\d+)" tests="(\d+)"/
          .exec(xml)!
          .slice(1)
          .map(Number);
      const rows = rowsOf((await extract(loadPayload(xunit2.path))).tables.test_results);
      const n = (o: string) => rows.filter((r) => r.outcome === o).length;
      expect([n("error"), n("failed"), n("skipped") + n("xfailed"), rows.length]).toEqual(declared);
      expect(n("xfailed")).toBe(1);
      const failed = rows.find((r) => r.outcome === "failed")!;
      expect([failed.node_id, failed.exception_type]).toEqual([
        "test_calc::test_fail_with_output",
        "AssertionError",
      ]);
      const xunit1 = corpusFiles("junit-xml").find((f) => f.name.includes("xunit1"))!;
      const first = rowsOf((await extract(loadPayload(xunit1.path))).tables.test_results)[0]!;
      expect([first.file, first.line]).toEqual(["test_calc.py", 3]);
    },
  );

  test(
    "Catch2 failure file/line is the crash site; " + "Marathon's flaky retry precedes a pass",
    async () => {
      const catch2 = rowsOf(
        (
          await extract(
            loadPayload(corpusFiles("junit-xml").find((f) => f.name.includes("catch2"))!.path),
          )
        ).tables.test_results,
      );
      expect([catch2[0]!.crash_file, catch2[0]!.crash_line, catch2[0]!.exception_type]).toEqual([
        "test/unit/detail/utility/is_constant_evaluated.cpp",
        19,
        "REQUIRE",
      ]);
      const flaky = rowsOf(
        (
          await extract(
            loadPayload(corpusFiles("junit-xml").find((f) => f.name.includes("flaky"))!.path),
          )
        ).tables.test_results,
      );
      expect(flaky.map((r) => [r.outcome, r.rerun_index])).toEqual([
        ["rerun", 0],
        ["passed", 1],
      ]);
    },
  );
});

describe("JUnit XML edge cases", () => {
  test("times: seconds, exponents, thousands separators and unit suffixes", () => {
    expect([
      junitTimeToNs("0.001"),
      junitTimeToNs("4.5e-05"),
      junitTimeToNs("1,234.5"),
      junitTimeToNs("1500ns"),
      junitTimeToNs("2ms"),
      junitTimeToNs("abc"),
      junitTimeToNs(undefined),
    ]).toEqual([1_000_000, 45_000, 1_234_500_000_000, 1500, 2_000_000, null, null]);
  });

  test(
    "a DTD is refused: billion laughs, an external entity, even an empty internal " + "subset",
    async () => {
      const laughs =
        `<?xml version="1.0"?><!DOCTYPE testsuites [<!ENTITY a "lol"><!ENTITY b ` +
        `"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c ` +
        `"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><testsuites><testsuite name="&c;"><testcase ` +
        `name="x"/></testsuite></testsuites>`;
      const xxe =
        `<?xml version="1.0"?><!DOCTYPE testsuite [<!ENTITY x SYSTEM ` +
        `"file:///etc/passwd">]><testsuite><testcase name="t"><failure ` +
        `message="&x;"/></testcase></testsuite>`;
      for (const xml of [laughs, xxe, `<!DOCTYPE testsuite><testsuite/>`]) {
        const error = await refusal(xml);
        expect(error.code).toBe("ARTIFACT_PARSE_FAILED");
        expect(error.message).toContain("DOCTYPE");
      }
    },
  );

  test(
    "undefined entities, malformed markup, a foreign root and deep nesting are typed parse " +
      "failures",
    async () => {
      for (const xml of [
        `<testsuite><testcase name="&nope;"/></testsuite>`,
        `<testsuite><testcase name="a"></testsuite>x</testcase>`,
        `<testsuite><testcase name="a" name="b"/></testsuite>`,
        `<testsuites>${"<testsuite>".repeat(300)}`,
      ])
        expect((await refusal(xml)).code).toBe("ARTIFACT_PARSE_FAILED");
      const foreign = enc.encode(`<coverage/>`);
      expect(detectAdapter({ head: headOf(foreign), displayName: "x.xml" })?.name).not.toBe(
        "junit-xml",
      );
    },
  );

  test(
    "a report cut off inside a testcase keeps the complete cases and the open one, flagged " +
      "partial",
    async () => {
      const evidence = await extract(
        enc.encode(
          `<testsuite name="s"><testcase name="a" time="1"/><testcase name="b" ` +
            `time="2"><failure type="E">boom</failure><system-out>partial out`,
        ),
      );
      const rows = rowsOf(evidence.tables.test_results);
      expect(rows.map((r) => [r.node_id, r.outcome, r.message])).toEqual([
        ["s::a", "passed", null],
        ["s::b", "failed", "boom"],
      ]);
      expect(evidence.limitations.map((l) => l.code)).toEqual(["truncated_document"]);
    },
  );

  test("long failure bodies are kept bounded", async () => {
    const rows = rowsOf(
      (
        await extract(
          enc.encode(
            `<testsuite><testcase classname="c" ` +
              `name="t"><failure><![CDATA[${"y".repeat(100_000)}` +
              `]]></failure></testcase></testsuite>`,
          ),
        )
      ).tables.test_results,
    );
    expect((rows[0]!.message as string).length).toBe(2048);
  });
});
