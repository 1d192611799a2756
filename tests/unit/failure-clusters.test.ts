/**
 * Message normalization for failure clusters and per-test outcomes from phase rows (retries
 * included).
 */
import { describe, expect, test } from "bun:test";
import { normalizeFailureMessage } from "../../src/analysis/failures/normalize-message.ts";
import { testOutcomes, type PhaseRow } from "../../src/analysis/failures/test-outcomes.ts";

describe("normalizeFailureMessage", () => {
  test(
    "numbers, addresses, paths, uuids and long hex ids become placeholders; only the first " +
      "line counts",
    () => {
      expect(normalizeFailureMessage("ValueError: bad value 7 at 0x7f3a2b1c")).toBe(
        "ValueError: bad value <n> at <addr>",
      );
      expect(normalizeFailureMessage("ValueError: bad value 8 at 0x55e1")).toBe(
        "ValueError: bad value <n> at <addr>",
      );
      expect(
        normalizeFailureMessage("assert 0.30000000000000004 == 0.3\n +  where 0.3 = add(0.1, 0.2)"),
      ).toBe("assert <n> == <n>");
      expect(
        normalizeFailureMessage(
          "FileNotFoundError: [Errno 2] No such file: '/tmp/pytest-of-root/pytest-3/x.txt'",
        ),
      ).toBe("FileNotFoundError: [Errno <n>] No such file: '<path>'");
      expect(normalizeFailureMessage("C:\\Users\\a\\b.txt missing")).toBe("<path> missing");
      expect(
        normalizeFailureMessage(
          "job 123e4567-e89b-12d3-a456-426614174000 digest deadbeefdeadbeef00 lost",
        ),
      ).toBe("job <uuid> digest <hex> lost");
      expect(normalizeFailureMessage("AssertionError: lists differ")).toBe(
        "AssertionError: lists differ",
      );
      expect(normalizeFailureMessage(null)).toBe("");
      expect(normalizeFailureMessage("x".repeat(1000)).length).toBe(300);
    },
  );
});

const row = (
  node_id: string,
  phase: string | null,
  outcome: string,
  record_kind = "test",
): PhaseRow => ({ record_kind, node_id, phase, outcome, file: "t.py", line: 1 });

describe("testOutcomes", () => {
  test(
    "phases combine as pytest counts them; passing collection reports are not tests, a skipped " +
      "module is",
    () => {
      const outcomes = testOutcomes([
        row("t.py", "collect", "passed", "collect"),
        row("t.py::a", "setup", "passed"),
        row("t.py::a", "call", "failed"),
        row("t.py::a", "teardown", "passed"),
        row("t.py::b", "setup", "error"),
        row("t.py::b", "teardown", "passed"),
        row("t.py::c", "setup", "passed"),
        row("t.py::c", "call", "xfailed"),
        row("t.py::c", "teardown", "passed"),
        row("t.py::d", "setup", "skipped"),
        row("t.py::d", "teardown", "passed"),
        row("broken.py", "collect", "error", "collect"),
        row("gpu_only.py", "collect", "skipped", "collect"),
        row("t.py::w", "runtest", "warning", "warning"),
      ]);
      expect(Object.fromEntries(outcomes.map((o) => [o.node_id, o.outcome]))).toEqual({
        "t.py::a": "failed",
        "t.py::b": "error",
        "t.py::c": "xfailed",
        "t.py::d": "skipped",
        "broken.py": "error",
        "gpu_only.py": "skipped",
      });
    },
  );

  test("after a retry the last attempt decides and the test is marked retried", () => {
    const [t] = testOutcomes([
      row("t.py::f", "setup", "passed"),
      row("t.py::f", "call", "rerun"),
      row("t.py::f", "setup", "passed"),
      row("t.py::f", "call", "passed"),
      row("t.py::f", "teardown", "passed"),
    ]);
    expect([t!.outcome, t!.retried]).toEqual(["passed", true]);
  });
});
