/**
 * From phase rows to one outcome per test, the way pytest's terminal summary counts them:
 * a failed call is "failed", a failed setup or teardown (or collection) is "error", an
 * expected failure "xfailed", and so on. When a test was retried in the same run
 * (pytest-rerunfailures reports "rerun" phases first), the last attempt decides and the
 * test is marked as having been retried.
 */
export interface PhaseRow {
  record_kind: string;
  node_id: string;
  phase: string | null;
  outcome: string;
  file: string | null;
  line: number | null;
}

export interface TestOutcome {
  node_id: string;
  outcome: string;
  file: string | null;
  line: number | null;
  retried: boolean;
}

/** Which outcome wins when phases disagree (a failed call with a clean teardown is failed). */
const PRECEDENCE = ["failed", "error", "xpassed", "xfailed", "skipped", "passed"];

export function testOutcomes(rows: readonly PhaseRow[]): TestOutcome[] {
  const byNode = new Map<
    string,
    { phases: string[]; retried: boolean; file: string | null; line: number | null }
  >();
  for (const row of rows) {
    // Collection reports for modules and packages count (as pytest counts them) only when
    // collection failed or skipped the whole module.
    if (row.record_kind === "collect" && row.outcome === "passed") continue;
    if (row.record_kind !== "test" && row.record_kind !== "collect") continue;
    let entry = byNode.get(row.node_id);
    if (!entry)
      byNode.set(
        row.node_id,
        (entry = { phases: [], retried: false, file: row.file, line: row.line }),
      );
    if (row.outcome === "rerun") {
      // A retry starts over: the phases reported before it belong to the failed attempt.
      entry.retried = true;
      entry.phases = [];
      continue;
    }
    entry.phases.push(row.outcome);
  }
  const out: TestOutcome[] = [];
  for (const [node_id, e] of byNode) {
    const outcome = PRECEDENCE.find((o) => e.phases.includes(o)) ?? "unknown";
    out.push({ node_id, outcome, file: e.file, line: e.line, retried: e.retried });
  }
  return out;
}
