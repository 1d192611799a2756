/**
 * Appends rows to the `test_results` table with the bounds every test-report adapter
 * shares: messages, keyword and property JSON are cut to a fixed size (a failing test can
 * carry megabytes of captured output) and the row says so in `truncated`; the row count
 * is held under the adapter's event limit.
 */
import { BoundedRowWriter } from "../common/bounded-rows.ts";

/**
 * Characters of a failure message kept: enough for the assertion and its first explanation lines.
 */
export const MAX_MESSAGE_CHARS = 2048;
/** Characters of keywords / properties JSON kept per row. */
export const MAX_JSON_CHARS = 2048;
const MAX_NAME_CHARS = 4096;

export type TestRecordKind = "test" | "collect" | "subtest" | "warning";
export type TestOutcome =
  | "passed"
  | "failed"
  | "error"
  | "skipped"
  | "xfailed"
  | "xpassed"
  | "rerun"
  | "warning";

export interface TestResultRow {
  record_kind: TestRecordKind;
  node_id: string;
  test_name?: string | null;
  suite?: string | null;
  file?: string | null;
  line?: number | null;
  phase?: string | null;
  outcome: TestOutcome;
  raw_outcome?: string | null;
  duration_ns?: number | null;
  start_ts_ns?: bigint | null;
  message?: string | null;
  exception_type?: string | null;
  crash_file?: string | null;
  crash_line?: number | null;
  keywords?: unknown;
  properties?: unknown;
  rerun_index?: number | null;
}

export class TestResultWriter extends BoundedRowWriter {
  /**
   * Reports repeat a test's identity on every phase row (setup, call, teardown); reusing the
   * previous row's string instances when equal keeps one copy instead of three.
   */
  private previous: Record<string, string | null> = {};

  add(row: TestResultRow): void {
    this.checkRoom("test report records");
    let truncated = false;
    const cut = (text: string | null | undefined, max: number): string | null => {
      if (text === null || text === undefined) return null;
      if (text.length <= max) return text;
      truncated = true;
      return text.slice(0, max);
    };
    const json = (value: unknown): string | null =>
      value === undefined || value === null ? null : cut(JSON.stringify(value), MAX_JSON_CHARS);
    const previous = this.previous;
    const same = (column: string, value: string | null): string | null => {
      const before = previous[column];
      if (before !== undefined && before === value) return before;
      previous[column] = value;
      return value;
    };
    this.table.append({
      result_index: this.count,
      record_kind: row.record_kind,
      node_id: same("node_id", cut(row.node_id, MAX_NAME_CHARS)),
      test_name: same("test_name", cut(row.test_name, MAX_NAME_CHARS)),
      suite: same("suite", cut(row.suite, MAX_NAME_CHARS)),
      file: same("file", cut(row.file, MAX_NAME_CHARS)),
      line: int32OrNull(row.line),
      phase: row.phase ?? null,
      outcome: row.outcome,
      raw_outcome: row.raw_outcome ?? null,
      duration_ns: row.duration_ns ?? null,
      start_ts_ns: row.start_ts_ns ?? null,
      message: cut(row.message, MAX_MESSAGE_CHARS),
      exception_type: cut(row.exception_type, MAX_NAME_CHARS),
      crash_file: cut(row.crash_file, MAX_NAME_CHARS),
      crash_line: int32OrNull(row.crash_line),
      keywords_json: same("keywords_json", json(row.keywords)),
      properties_json: json(row.properties),
      rerun_index: row.rerun_index ?? null,
      truncated,
    });
    this.count += 1;
  }
}

function int32OrNull(value: number | null | undefined): number | null {
  return typeof value === "number" &&
    Number.isInteger(value) &&
    value >= -2_147_483_648 &&
    value <= 2_147_483_647
    ? value
    : null;
}
