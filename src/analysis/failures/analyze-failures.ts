/**
 * The failures recipe over the `test_results` of one or more runs or artifacts:
 *  - populations: how many tests ended in each outcome, per input;
 *  - clusters (the paged items): failing phases grouped by exception type, normalized
 *    message and the place of the crash, so one defect hitting many tests reads as one line;
 *  - flaky tests: the same node id passing in one input and failing in another, or
 *    passing after a retry within one run.
 * Read straight from Parquet (no engine start): the answer is a small aggregation.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { SnapshotHandle } from "../../storage/snapshot.ts";
import { type AnalysisResult, distinctLimitations, resultBase } from "../analysis-result.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import type { PartCache } from "../evidence-parts.ts";
import { readEvidenceColumns } from "../evidence-reader.ts";
import type { Subject } from "../subject.ts";
import { normalizeFailureMessage } from "./normalize-message.ts";
import { testOutcomes, type PhaseRow } from "./test-outcomes.ts";

export const FAILURES_RECIPE_VERSION = "1";
const EXAMPLES = 5;
const MAX_FLAKY = 100;
const MAX_MESSAGE_CHARS = 500;
const FAILING = new Set(["failed", "error"]);
const PASSING = new Set(["passed", "xpassed"]);
/** Adapter limitations that mean a report stops before its end: tests may be missing. */
const PARTIAL_REPORT = new Set([
  "truncated_last_line",
  "truncated_document",
  "session_not_finished",
]);

export interface FailureCluster {
  cluster_key: string;
  exception_type: string | null;
  message_pattern: string;
  location: string | null;
  /** Failing phases in the cluster. */
  count: number;
  tests: number;
  inputs: number;
  outcomes: Record<string, number>;
  example_node_ids: string[];
  example_message: string | null;
}

export interface FailurePopulation {
  subject: { type: "run" | "artifact"; id: string };
  tests: number;
  by_outcome: Record<string, number>;
  /** Tests retried within the run (pytest-rerunfailures); their last attempt is counted. */
  retried: number;
  warnings: number;
}

export interface FlakyTest {
  node_id: string;
  outcomes: { subject_id: string; outcome: string; retried: boolean }[];
}

export type FailuresResult = AnalysisResult<FailureCluster> & {
  subjects: { type: "run" | "artifact"; id: string }[];
  populations: FailurePopulation[];
  flaky: FlakyTest[];
  flaky_total: number;
};

const COLUMNS = [
  "record_kind",
  "node_id",
  "phase",
  "outcome",
  "file",
  "line",
  "message",
  "exception_type",
  "crash_file",
  "crash_line",
];

interface Row extends PhaseRow {
  message: string | null;
  exception_type: string | null;
  crash_file: string | null;
  crash_line: number | null;
}

async function rowsOf(
  snapshot: SnapshotHandle,
  subject: Subject,
  parts: PartCache | undefined,
): Promise<Row[]> {
  const generations = subject.generations.filter((g) => (g.tables.test_results ?? 0) > 0);
  const { rows, columns: c } = await readEvidenceColumns(
    snapshot,
    "test_results",
    generations,
    COLUMNS,
    parts,
  );
  const out: Row[] = [];
  const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  for (let i = 0; i < rows; i++) {
    out.push({
      record_kind: String(c.record_kind![i]),
      node_id: String(c.node_id![i]),
      phase: str(c.phase![i]),
      outcome: String(c.outcome![i]),
      file: str(c.file![i]),
      line: num(c.line![i]),
      message: str(c.message![i]),
      exception_type: str(c.exception_type![i]),
      crash_file: str(c.crash_file![i]),
      crash_line: num(c.crash_line![i]),
    });
  }
  return out;
}

/** Where it failed: the crash site when the report has one, else the test's own place. */
function locationOf(row: Row): string | null {
  if (row.crash_file !== null)
    return row.crash_line === null ? row.crash_file : `${row.crash_file}:${row.crash_line}`;
  if (row.file !== null) return row.line === null ? row.file : `${row.file}:${row.line}`;
  return null;
}

export async function analyzeFailures(
  snapshot: SnapshotHandle,
  subjects: Subject[],
  options: { limit: number; cursor?: string | null },
  parts?: PartCache,
): Promise<FailuresResult> {
  const binding = {
    query: `analyze_failures@${FAILURES_RECIPE_VERSION}`,
    filters: { subjects: subjects.map((s) => s.id) },
    commitId: snapshot.commitId,
  };
  const offset = decodeCursor(options.cursor, binding);
  const first = subjects[0]!;
  const generations = subjects.flatMap((s) =>
    s.generations.filter((g) => g.tables.test_results !== undefined),
  );
  const base = resultBase(
    { name: "analyze_failures", version: FAILURES_RECIPE_VERSION, claimLevel: "derived" },
    snapshot,
    first,
    generations,
  );
  const limitations: Limitation[] = distinctLimitations([base.limitations]);
  const inputs = {
    subject: base.inputs.subject,
    run_ids: [...new Set(subjects.flatMap((s) => s.runIds))],
    artifact_ids: [...new Set(subjects.flatMap((s) => s.artifactIds))],
    generation_ids: generations.map((g) => g.generation_id),
  };
  const subjectRefs = subjects.map((s) => ({ type: s.type, id: s.id }));

  const populations: FailurePopulation[] = [];
  const clusters = new Map<
    string,
    FailureCluster & { nodes: Set<string>; inputSet: Set<string> }
  >();
  const perNode = new Map<string, FlakyTest["outcomes"]>();
  let anyRows = false;
  for (const subject of subjects) {
    const rows = await rowsOf(snapshot, subject, parts);
    if (rows.length > 0) anyRows = true;
    const outcomes = testOutcomes(rows);
    const by_outcome: Record<string, number> = {};
    for (const t of outcomes) {
      by_outcome[t.outcome] = (by_outcome[t.outcome] ?? 0) + 1;
      let list = perNode.get(t.node_id);
      if (!list) perNode.set(t.node_id, (list = []));
      list.push({ subject_id: subject.id, outcome: t.outcome, retried: t.retried });
    }
    populations.push({
      subject: { type: subject.type, id: subject.id },
      tests: outcomes.length,
      by_outcome,
      retried: outcomes.filter((t) => t.retried).length,
      warnings: rows.filter((r) => r.record_kind === "warning").length,
    });
    for (const row of rows) {
      if (
        (row.record_kind !== "test" && row.record_kind !== "collect") ||
        !FAILING.has(row.outcome)
      )
        continue;
      const pattern = normalizeFailureMessage(row.message);
      const location = locationOf(row);
      const key = JSON.stringify([row.exception_type, pattern, location]);
      let cluster = clusters.get(key);
      if (!cluster) {
        cluster = {
          cluster_key: key,
          exception_type: row.exception_type,
          message_pattern: pattern,
          location,
          count: 0,
          tests: 0,
          inputs: 0,
          outcomes: {},
          example_node_ids: [],
          example_message: row.message === null ? null : row.message.slice(0, MAX_MESSAGE_CHARS),
          nodes: new Set(),
          inputSet: new Set(),
        };
        clusters.set(key, cluster);
      }
      cluster.count += 1;
      cluster.outcomes[row.outcome] = (cluster.outcomes[row.outcome] ?? 0) + 1;
      cluster.nodes.add(row.node_id);
      cluster.inputSet.add(subject.id);
      if (
        cluster.example_node_ids.length < EXAMPLES &&
        !cluster.example_node_ids.includes(row.node_id)
      )
        cluster.example_node_ids.push(row.node_id);
    }
  }

  const sorted = [...clusters.values()]
    .map(({ nodes, inputSet, ...c }) => ({ ...c, tests: nodes.size, inputs: inputSet.size }))
    .sort(
      (a, b) =>
        b.count - a.count || b.tests - a.tests || a.cluster_key.localeCompare(b.cluster_key),
    );
  const flakyAll: FlakyTest[] = [];
  for (const [node_id, list] of perNode) {
    const passed = list.some((o) => PASSING.has(o.outcome));
    const failed = list.some((o) => FAILING.has(o.outcome));
    const retriedToPass = list.some((o) => o.retried && PASSING.has(o.outcome));
    if ((passed && failed) || retriedToPass) flakyAll.push({ node_id, outcomes: list });
  }
  flakyAll.sort((a, b) => a.node_id.localeCompare(b.node_id));
  if (flakyAll.length > MAX_FLAKY)
    limitations.push({
      code: "flaky_list_truncated",
      message: `${flakyAll.length} flaky tests; the first ${MAX_FLAKY} by node id are listed`,
      count: flakyAll.length,
    });
  if (subjects.length === 1)
    limitations.push({
      code: "single_input",
      message:
        "Flakiness across runs needs two or more runs or artifacts; only retries within the " +
        "run are seen",
    });

  const page = sorted.slice(offset, offset + options.limit);
  const end = offset + page.length;
  const failingTests = populations.reduce(
    (n, p) => n + (p.by_outcome.failed ?? 0) + (p.by_outcome.error ?? 0),
    0,
  );
  const evidence =
    generations.length === 0
      ? {
          status: "unavailable" as const,
          reason:
            "no_test_results: no imported test report (pytest-reportlog, JUnit XML) for " +
            "these inputs in the pinned commit",
          next_tool: "import_artifact",
        }
      : !anyRows
        ? { status: "empty" as const, reason: "the test reports hold no test records" }
        : limitations.some((l) => PARTIAL_REPORT.has(l.code))
          ? {
              status: "partial" as const,
              reason:
                `a test report was cut short (see limitations); ${failingTests} failing tests ` +
                `in ${sorted.length} clusters over ${subjects.length} input(s) among the tests ` +
                `it holds`,
            }
          : {
              status: "available" as const,
              reason:
                `${failingTests} failing tests in ${sorted.length} clusters ` +
                `over ${subjects.length} input(s)`,
            };
  return {
    ...base,
    inputs,
    limitations,
    evidence,
    items: page,
    total: sorted.length,
    returned: page.length,
    truncated: end < sorted.length,
    next_cursor: end < sorted.length ? encodeCursor(binding, end) : null,
    subjects: subjectRefs,
    populations,
    flaky: flakyAll.slice(0, MAX_FLAKY),
    flaky_total: flakyAll.length,
  };
}
