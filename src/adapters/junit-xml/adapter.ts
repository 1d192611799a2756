/**
 * JUnit XML test reports, in the dialects runners actually write: a `<testsuites>` or a
 * bare `<testsuite>` root, suites nested in suites (mocha), pytest's xunit1/xunit2
 * (`file`/`line` on testcase, xfail as `<skipped type="pytest.xfail">`), Maven Surefire
 * (including `flakyFailure`/`rerunFailure` retries), Catch2 (`file`/`line` on failure) and
 * cargo-nextest. Each testcase becomes one `test_results` row (phase "call"; JUnit does not
 * separate phases), preceded by a "rerun" row per retry it reports.
 *
 * The document goes through saxes, a streaming non-validating parser, in chunks. A
 * DOCTYPE is refused outright: JUnit reports never need one, and a DTD is how entity
 * expansion attacks (billion laughs, external entities) get in. saxes itself expands
 * only XML's five predefined entities and character references.
 */
import type { SaxesTagPlain } from "saxes";
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { newXmlParser } from "../common/xml-parser.ts";
import { decodeUtf8Document, parseFailed } from "../json-guard.ts";
import {
  MAX_MESSAGE_CHARS,
  TestResultWriter,
  type TestOutcome,
} from "../test-results/row-writer.ts";
import { junitXmlDescription } from "./description.ts";

const NAME = junitXmlDescription.name;
const VERSION = junitXmlDescription.version;
const LABEL = "JUnit XML";
const CHUNK_CHARS = 64 * 1024;
/** Nested elements deeper than this are refused (reports nest a few suites, not hundreds). */
const MAX_DEPTH = 256;

interface OpenCase {
  name: string;
  classname: string | null;
  file: string | null;
  line: number | null;
  durationNs: number | null;
  suite: string | null;
  properties: [string, string][];
  result: {
    outcome: TestOutcome;
    message: string | null;
    type: string | null;
    file: string | null;
    line: number | null;
    text: string;
  } | null;
  reruns: { message: string | null; type: string | null; text: string }[];
}

const RESULT_TAGS: Record<string, TestOutcome> = {
  failure: "failed",
  error: "error",
  skipped: "skipped",
};
const RERUN_TAGS = new Set(["flakyFailure", "flakyError", "rerunFailure", "rerunError"]);
const TYPE_PREFIX = /^([A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit|Interrupt|Warning|Failed)):/;

/**
 * Seconds as runners write them: "0.001", "4.5e-05", Surefire's "1,234.5", or with a unit suffix.
 */
export function junitTimeToNs(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = /^\s*([0-9][0-9,]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*(ns|us|µs|ms|s)?\s*$/.exec(
    value,
  );
  if (!m) return null;
  const n = Number(m[1]!.replaceAll(",", ""));
  if (!Number.isFinite(n) || n < 0) return null;
  const scale = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 }[m[2] ?? "s"]!;
  const ns = Math.round(n * scale);
  return Number.isSafeInteger(ns) ? ns : null;
}

function intAttr(value: string | undefined): number | null {
  return value !== undefined && /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : null;
}

function refused(what: string): FlameoxError {
  return new FlameoxError("ARTIFACT_PARSE_FAILED", `Cannot parse ${LABEL}: ${what}`, {
    remediation: [
      "JUnit reports need no DTD or entity declarations; remove the DOCTYPE or re-export the " +
        "report from the test runner",
    ],
    details: { refused: "doctype" },
  });
}

export function extractJunitXml(input: ExtractInput): NormalizedEvidence {
  const text = decodeUtf8Document(input.bytes, LABEL);
  const tables = emptyTables();
  const out = new TestResultWriter(tables.test_results, LABEL, input.limits.maxEvents);
  const limitations: Limitation[] = [];
  const parser = newXmlParser();
  const stack: string[] = [];
  const suites: string[] = [];
  let current: OpenCase | null = null;
  /** Where character data goes: the open result or rerun element of the current testcase. */
  let textTarget: { text: string } | null = null;
  let root: string | null = null;
  let suiteCount = 0;
  let cases = 0;

  const appendText = (t: string) => {
    if (textTarget && textTarget.text.length < MAX_MESSAGE_CHARS)
      textTarget.text += t.slice(0, MAX_MESSAGE_CHARS - textTarget.text.length);
  };
  parser.on("doctype", () => {
    throw refused("the document declares a DOCTYPE (DTDs and entity declarations are refused)");
  });
  parser.on("error", (e) => {
    throw parseFailed(LABEL, e.message, e);
  });
  parser.on("text", appendText);
  parser.on("cdata", appendText);
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const a = tag.attributes;
    stack.push(tag.name);
    if (stack.length > MAX_DEPTH)
      throw parseFailed(LABEL, `elements are nested deeper than ${MAX_DEPTH}`);
    if (root === null) {
      root = tag.name;
      if (root !== "testsuites" && root !== "testsuite")
        throw parseFailed(
          LABEL,
          `expected the root element to be testsuites or testsuite but found ${root}`,
        );
    }
    if (tag.name === "testsuite") {
      suiteCount += 1;
      suites.push(a.name ?? "");
    } else if (tag.name === "testcase") {
      if (current) throw parseFailed(LABEL, "a testcase is nested in another testcase");
      current = {
        name: a.name ?? "",
        classname: a.classname ?? null,
        file: a.file ?? null,
        line: intAttr(a.line),
        durationNs: junitTimeToNs(a.time),
        suite: suites.filter((s) => s !== "").join(" / ") || null,
        properties: [],
        result: null,
        reruns: [],
      };
    } else if (current && stack.at(-2) === "testcase" && tag.name in RESULT_TAGS) {
      // A second result element (some runners write failure and error) keeps the first.
      if (!current.result) {
        current.result = {
          outcome: RESULT_TAGS[tag.name]!,
          message: a.message?.trim() || null,
          type: a.type ?? null,
          file: a.file ?? null,
          line: intAttr(a.line),
          text: "",
        };
        textTarget = current.result;
      }
    } else if (current && stack.at(-2) === "testcase" && RERUN_TAGS.has(tag.name)) {
      const rerun = { message: a.message?.trim() || null, type: a.type ?? null, text: "" };
      current.reruns.push(rerun);
      textTarget = rerun;
    } else if (current && tag.name === "property" && a.name !== undefined) {
      if (current.properties.length < 64) current.properties.push([a.name, a.value ?? ""]);
    }
  });
  parser.on("closetag", (tag: SaxesTagPlain) => {
    stack.pop();
    if (tag.name === "testsuite") suites.pop();
    else if (tag.name === "testcase" && current) {
      emitCase(current, out);
      cases += 1;
      current = null;
      textTarget = null;
    } else if (tag.name in RESULT_TAGS || RERUN_TAGS.has(tag.name)) textTarget = null;
  });

  const failure = (e: unknown) =>
    e instanceof FlameoxError
      ? e
      : parseFailed(LABEL, e instanceof Error ? e.message : String(e), e);
  try {
    for (let i = 0; i < text.length; i += CHUNK_CHARS) parser.write(text.slice(i, i + CHUNK_CHARS));
  } catch (e) {
    throw failure(e);
  }
  try {
    parser.close();
  } catch (e) {
    // Everything read was well formed but the document stops inside an element: the runner
    // was cut off while writing (Surefire leaves such files). Keep what is complete, and
    // the testcase being written when it stopped, and say the evidence is partial.
    if (root === null || !(e instanceof FlameoxError) || !/unclosed tag/.test(e.message))
      throw failure(e);
    if (current) {
      emitCase(current, out);
      cases += 1;
    }
    limitations.push({
      code: "truncated_document",
      message:
        `The document ends inside ${stack.join(" > ")}; the report was cut short, so the ` +
        `evidence is partial`,
      count: 1,
    });
  }
  if (root === null) throw parseFailed(LABEL, "the document has no root element");
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: null,
    producerVersion: null,
    tables,
    limitations,
    summary: { root, suites: suiteCount, testcases: cases, test_results: out.rows },
  };
}

/**
 * The first line of the body when the element has no message attribute (nextest, some Surefire
 * errors).
 */
function firstLine(text: string): string | null {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  return line ?? null;
}

function exceptionOf(type: string | null, message: string | null): string | null {
  if (type !== null && type !== "") return type;
  return message ? (TYPE_PREFIX.exec(message)?.[1] ?? null) : null;
}

function emitCase(c: OpenCase, out: TestResultWriter): void {
  const nodeId = c.classname
    ? `${c.classname}::${c.name}`
    : c.suite
      ? `${c.suite}::${c.name}`
      : c.name;
  const common = {
    record_kind: "test" as const,
    node_id: nodeId,
    test_name: c.name,
    suite: c.classname ?? c.suite,
    file: c.file,
    line: c.line,
    phase: "call",
  };
  c.reruns.forEach((r, i) => {
    const message = r.message ?? firstLine(r.text);
    out.add({
      ...common,
      outcome: "rerun",
      raw_outcome: "rerun",
      message,
      exception_type: exceptionOf(r.type, message ?? r.text),
      rerun_index: i,
    });
  });
  const r = c.result;
  let outcome: TestOutcome = r?.outcome ?? "passed";
  // pytest's junitxml writes an expected failure as a skip of type pytest.xfail.
  if (r?.outcome === "skipped" && r.type === "pytest.xfail") outcome = "xfailed";
  const message = r ? (r.message ?? firstLine(r.text)) : null;
  out.add({
    ...common,
    outcome,
    raw_outcome: r
      ? (Object.entries(RESULT_TAGS).find(([, o]) => o === r.outcome)?.[0] ?? null)
      : "passed",
    duration_ns: c.durationNs,
    message,
    exception_type: r && r.outcome !== "skipped" ? exceptionOf(r.type, message) : null,
    crash_file: r?.file ?? null,
    crash_line: r?.line ?? null,
    properties: c.properties.length > 0 ? { properties: c.properties } : undefined,
    rerun_index: c.reruns.length,
  });
}

export const junitXmlAdapter: ProducerAdapter = {
  ...junitXmlDescription,
  extract: extractJunitXml,
};
