/**
 * pytest-reportlog JSON Lines (`pytest --report-log=FILE`): one JSON object per line, each
 * tagged with `$report_type`. SessionStart carries the pytest version, SessionFinish the
 * exit status; CollectReport, TestReport (one per phase: setup, call, teardown),
 * SubTestReport and WarningMessage become `test_results` rows. Report types this reader
 * does not know are skipped and counted. pytest writes the file as it runs, so a run
 * that was killed leaves a cut last line: the complete lines are kept and a limitation
 * says the evidence is partial; a bad line anywhere else is a parse failure.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { EVIDENCE_SCHEMAS } from "../../domain/evidence-schema.ts";
import { TableBuffer } from "../../domain/table-buffer.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import {
  assertNestingWithin,
  expectationFailed,
  isPlainObject,
  parseFailed,
} from "../json-guard.ts";
import {
  TestResultWriter,
  type TestOutcome,
  type TestRecordKind,
} from "../test-results/row-writer.ts";
import { pytestReportlogDescription } from "./description.ts";
import { summarizeLongrepr } from "./longrepr.ts";

const NAME = pytestReportlogDescription.name;
const VERSION = pytestReportlogDescription.version;
const LABEL = "pytest-reportlog JSONL";
const NEWLINE = 0x0a;
const decoder = new TextDecoder("utf-8", { fatal: true });

interface Line {
  number: number;
  bytes: Uint8Array;
  /** The file's last line: nothing but its newline follows it. */
  last: boolean;
}

/**
 * The lines from chunks of any size: a line that ends a chunk waits to learn whether more
 * follows.
 */
async function* streamedLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Line> {
  let carry: Uint8Array = new Uint8Array(0);
  let held: Line | null = null;
  let number = 0;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (held) yield held;
    held = null;
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const line = { number: ++number, bytes: bytes.subarray(start, end), last: false };
      if (end === bytes.length - 1) held = line;
      else yield line;
      start = end + 1;
    }
    carry = bytes.slice(start);
  }
  if (held) yield { ...held, last: true };
  else if (carry.length > 0) yield { number: number + 1, bytes: carry, last: true };
}

/** Rows per test_results batch handed to the sink. */
const BATCH_ROWS = 16384;

/** Reads the records line by line; rows go to `out`, what the session says is kept here. */
class ReportlogReader {
  readonly limitations: Limitation[] = [];
  private readonly unknown = new Map<string, number>();
  private readonly seenPhase = new Map<string, number>();
  private pytestVersion: string | null = null;
  private exitStatus: number | null = null;
  private sessionFinished = false;
  private records = 0;
  /** Set at a cut-off last line: what follows it is not read. */
  stopped = false;

  constructor(
    readonly out: TestResultWriter,
    private readonly maxDepth: number,
  ) {}

  line(line: Line): void {
    let text: string;
    try {
      text = decoder.decode(line.bytes).trim();
    } catch (error) {
      throw parseFailed(LABEL, `line ${line.number} is not valid UTF-8`, error);
    }
    if (text === "") return;
    assertNestingWithin(line.bytes, this.maxDepth, LABEL);
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      if (line.last) {
        this.limitations.push({
          code: "truncated_last_line",
          message:
            `The last line (${line.number}) is incomplete JSON; the run was probably cut ` +
            `short, so the evidence is partial`,
          count: 1,
        });
        this.stopped = true;
        return;
      }
      throw parseFailed(
        LABEL,
        `line ${line.number} is not JSON ` +
          `(${error instanceof Error ? error.message : String(error)})`,
        error,
      );
    }
    if (!isPlainObject(record))
      throw expectationFailed(LABEL, `line ${line.number}`, "an object", record);
    const type = record.$report_type;
    if (typeof type !== "string")
      throw expectationFailed(LABEL, `line ${line.number}.$report_type`, "a string", type);
    this.records += 1;
    switch (type) {
      case "SessionStart":
        this.pytestVersion =
          typeof record.pytest_version === "string" ? record.pytest_version : null;
        break;
      case "SessionFinish":
        this.sessionFinished = true;
        this.exitStatus = typeof record.exitstatus === "number" ? record.exitstatus : null;
        break;
      case "CollectReport":
        readCollect(record, line.number, this.out);
        break;
      case "TestReport":
      case "SubTestReport":
        readTest(
          record,
          line.number,
          type === "SubTestReport" ? "subtest" : "test",
          this.out,
          this.seenPhase,
        );
        break;
      case "WarningMessage":
        readWarning(record, this.out);
        break;
      default:
        this.unknown.set(type, (this.unknown.get(type) ?? 0) + 1);
    }
  }

  /** The evidence besides the rows, once every line is read. */
  evidence(): Omit<NormalizedEvidence, "tables"> {
    if (this.records === 0) throw parseFailed(LABEL, "the file holds no report records");
    const limitations = [...this.limitations];
    const unknownCount = [...this.unknown.values()].reduce((a, b) => a + b, 0);
    if (unknownCount > 0) {
      const names = [...this.unknown.keys()].slice(0, 8).join(", ");
      limitations.push({
        code: "unknown_report_types",
        message:
          `Skipped ${unknownCount} records of report types ` +
          `this reader does not know (${names})`,
        count: unknownCount,
      });
    }
    if (!this.sessionFinished && !limitations.some((l) => l.code === "truncated_last_line")) {
      limitations.push({
        code: "session_not_finished",
        message:
          "No SessionFinish record: the session may have been interrupted, so tests may be missing",
      });
    }
    return {
      adapter: NAME,
      adapterVersion: VERSION,
      producer: "pytest",
      producerVersion: this.pytestVersion,
      limitations,
      summary: {
        records: this.records,
        test_results: this.out.rows,
        exit_status: this.exitStatus,
        session_finished: this.sessionFinished,
        unknown_records: unknownCount,
      },
    };
  }
}

/**
 * Records chunk by chunk, the rows handed to the sink in batches: memory does not grow with
 * the file.
 */
export async function extractPytestReportlogStream(
  input: StreamExtractInput,
): Promise<StreamedEvidence> {
  const reader = new ReportlogReader(
    new TestResultWriter(
      new TableBuffer(EVIDENCE_SCHEMAS.test_results),
      LABEL,
      input.limits.maxEvents,
    ),
    input.limits.maxNestingDepth,
  );
  for await (const line of streamedLines(input.chunks)) {
    reader.line(line);
    if (reader.out.pending >= BATCH_ROWS)
      await input.sink.writeBatch(tableBufferToBatch(reader.out.take()));
    if (reader.stopped) break;
  }
  const evidence = reader.evidence();
  await input.sink.writeBatch(tableBufferToBatch(reader.out.take()));
  return { ...evidence, tables: {}, streamed: ["test_results"] };
}

function stringAt(record: Record<string, unknown>, field: string, line: number): string {
  const value = record[field];
  if (typeof value !== "string")
    throw expectationFailed(LABEL, `line ${line}.${field}`, "a string", value);
  return value;
}

/** `a.py::Cls::test_x` → suite `a.py::Cls` (the JUnit classname's role); a bare path has none. */
function suiteOf(nodeId: string): string | null {
  const cut = nodeId.lastIndexOf("::");
  return cut === -1 ? null : nodeId.slice(0, cut);
}

function secondsToNs(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.round(value * 1e9)
    : null;
}

/** Epoch seconds as a double hold about microsecond precision; keep that much, as int64 ns. */
function epochSecondsToNs(value: unknown): bigint | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? BigInt(Math.round(value * 1e6)) * 1000n
    : null;
}

function readCollect(record: Record<string, unknown>, line: number, out: TestResultWriter): void {
  const nodeId = stringAt(record, "nodeid", line);
  const raw = stringAt(record, "outcome", line);
  const failure = summarizeLongrepr(record.longrepr);
  out.add({
    record_kind: "collect",
    node_id: nodeId,
    suite: suiteOf(nodeId),
    file: nodeId.split("::")[0] || null,
    outcome: raw === "failed" ? "error" : raw === "skipped" ? "skipped" : "passed",
    raw_outcome: raw,
    phase: "collect",
    message: failure.message,
    exception_type: failure.exceptionType,
    crash_file: failure.crashFile,
    crash_line: failure.crashLine,
  });
}

/**
 * pytest's own outcome words: a failure outside the call phase is an error; an expected
 * failure is reported as skipped with `wasxfail`, an unexpected pass as passed with it.
 */
function normalizedOutcome(raw: string, when: string | null, wasxfail: boolean): TestOutcome {
  if (wasxfail && raw === "skipped") return "xfailed";
  if (wasxfail && raw === "passed") return "xpassed";
  if (raw === "failed") return when === "call" ? "failed" : "error";
  if (raw === "passed" || raw === "skipped" || raw === "rerun") return raw;
  return "error";
}

function readTest(
  record: Record<string, unknown>,
  line: number,
  kind: TestRecordKind,
  out: TestResultWriter,
  seenPhase: Map<string, number>,
): void {
  const nodeId = stringAt(record, "nodeid", line);
  const raw = stringAt(record, "outcome", line);
  const when = typeof record.when === "string" ? record.when : null;
  const location = Array.isArray(record.location) ? record.location : [];
  const [file, lineno, domain] = location;
  const failure = summarizeLongrepr(record.longrepr);
  // pytest-rerunfailures reports each retry of a phase again under the same node id.
  const key = `${kind}\u0000${nodeId}\u0000${when}`;
  const rerunIndex = seenPhase.get(key) ?? 0;
  seenPhase.set(key, rerunIndex + 1);
  const subtest =
    kind === "subtest" && isPlainObject(record["_subtest.context"])
      ? record["_subtest.context"]
      : undefined;
  out.add({
    record_kind: kind,
    node_id: nodeId,
    test_name: typeof domain === "string" ? domain : null,
    suite: suiteOf(nodeId),
    file: typeof file === "string" ? file : null,
    // pytest's location line is 0-based; stored 1-based like every other line column.
    line: typeof lineno === "number" && Number.isInteger(lineno) ? lineno + 1 : null,
    phase: when,
    outcome: normalizedOutcome(raw, when, record.wasxfail !== undefined),
    raw_outcome: raw,
    duration_ns: secondsToNs(record.duration),
    start_ts_ns: epochSecondsToNs(record.start),
    message:
      failure.message ??
      (typeof record.wasxfail === "string" && record.wasxfail !== "" ? record.wasxfail : null),
    exception_type: failure.exceptionType,
    crash_file: failure.crashFile,
    crash_line: failure.crashLine,
    keywords: isPlainObject(record.keywords)
      ? Object.keys(record.keywords).filter((k) => k !== "")
      : undefined,
    properties:
      subtest !== undefined ||
      (Array.isArray(record.user_properties) && record.user_properties.length > 0)
        ? {
            ...(Array.isArray(record.user_properties) && record.user_properties.length > 0
              ? { user_properties: record.user_properties }
              : {}),
            ...(subtest ? { subtest } : {}),
          }
        : undefined,
    rerun_index: when === null ? null : rerunIndex,
  });
}

function readWarning(record: Record<string, unknown>, out: TestResultWriter): void {
  const file = typeof record.filename === "string" ? record.filename : null;
  out.add({
    record_kind: "warning",
    node_id: typeof record.nodeid === "string" ? record.nodeid : "",
    file,
    line: typeof record.lineno === "number" ? record.lineno : null,
    phase: typeof record.when === "string" ? record.when : null,
    outcome: "warning",
    message: typeof record.message === "string" ? record.message : null,
    exception_type: typeof record.category === "string" ? record.category : null,
  });
}

export const pytestReportlogAdapter: ProducerAdapter = {
  ...pytestReportlogDescription,
  extractStream: extractPytestReportlogStream,
};
