/**
 * The failures recipe end to end: Debian's pytest runs fixtures/pytest-project twice (the
 * second time with test_flaky passing), both reportlogs are imported, and `analyze
 * failures` / analyze_failures are checked against what pytest itself printed: its final
 * summary line (tests per outcome) and its short summary (one FAILED/ERROR line per
 * failing test, with the exception), which flameox never reads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, tempWorkspace } from "../helpers.ts";
import { call, connect } from "../mcp/mcp-helpers.ts";
import { hasPytest, runPytestProjectWithOutput } from "../adapters/pytest-project.ts";

interface PytestSummary {
  counts: Record<string, number>;
  warnings: number;
  /** node id → "FAILED" | "ERROR" and the text after " - ". */
  failing: Map<string, { kind: string; text: string }>;
}

/** pytest's words: "4 failed, 2 passed, 1 skipped, 1 xfailed, 1 warning, 1 error in 0.20s". */
function pytestSummary(stdout: string): PytestSummary {
  const last = stdout.trim().split("\n").at(-1)!.replace(/=/g, "").trim();
  const counts: Record<string, number> = {};
  let warnings = 0;
  for (const m of last.replace(/ in [\d.]+s.*$/, "").matchAll(/(\d+) (\w+)/g)) {
    const word = m[2]!.replace(/s$/, "").replace(/^errors?$/, "error");
    if (word === "warning") warnings = Number(m[1]);
    else counts[word === "error" ? "error" : m[2]!] = Number(m[1]);
  }
  const failing = new Map<string, { kind: string; text: string }>();
  for (const m of stdout.matchAll(/^(FAILED|ERROR) (\S+) - (.*)$/gm))
    failing.set(m[2]!, { kind: m[1]!, text: m[3]! });
  return { counts, warnings, failing };
}

let root = "";
let cleanup = () => {};
const runs: { artifact: string; summary: PytestSummary; id: string }[] = [];
let both: any = null;

beforeAll(async () => {
  if (!hasPytest) return;
  ({ root, cleanup } = await tempWorkspace());
  for (const [name, env] of [
    ["first", {}],
    ["second", { FLAKY_PASS: "1" }],
  ] as const) {
    const path = join(root, `${name}.reportlog.jsonl`);
    // The first run also writes pytest's own JUnit XML, to check the recipe over that format.
    const { stdout } = runPytestProjectWithOutput(
      path,
      env,
      name === "first" ? [`--junitxml=${join(root, "junit.xml")}`] : [],
    );
    const imported = await cli(["import", path, "--json"], { cwd: root });
    expect(imported.code).toBe(0);
    expect(imported.json.extraction.adapter).toBe("pytest-reportlog");
    runs.push({ artifact: imported.json.artifact_id, summary: pytestSummary(stdout), id: name });
  }
  const r = await cli(["analyze", "failures", runs[0]!.artifact, runs[1]!.artifact, "--json"], {
    cwd: root,
  });
  expect(r.code).toBe(0);
  both = r.json;
}, 60_000);
afterAll(() => cleanup());

describe.skipIf(!hasPytest)("analyze failures", () => {
  test("populations per input equal pytest's own summary line", async () => {
    const r = { json: both };
    expect(r.json.evidence.status).toBe("available");
    expect(r.json.populations.length).toBe(2);
    runs.forEach((run, i) => {
      const p = r.json.populations[i];
      expect(p.subject.id).toBe(run.artifact);
      expect(p.by_outcome).toEqual(run.summary.counts);
      expect(p.warnings).toBe(run.summary.warnings);
    });
    // The second run really differs: test_flaky passed.
    expect(runs[1]!.summary.counts.failed).toBe(runs[0]!.summary.counts.failed! - 1);
  });

  test(
    "clusters cover every failing test pytest listed, grouped by exception and normalized " +
      "message",
    async () => {
      const r = { json: both };
      const clusters = r.json.items as {
        exception_type: string | null;
        message_pattern: string;
        count: number;
        tests: number;
        inputs: number;
        example_node_ids: string[];
        outcomes: Record<string, number>;
      }[];
      const expectedPhases = runs.reduce((n, run) => n + run.summary.failing.size, 0);
      expect(clusters.reduce((n, c) => n + c.count, 0)).toBe(expectedPhases);
      // pytest's short summary names the exception after " - "; the two parametrized ValueErrors
      // (different numbers) are one cluster.
      const valueErrors = [...runs[0]!.summary.failing]
        .filter(([, f]) => f.text.startsWith("ValueError:"))
        .map(([id]) => `test_sample.py::${id.split("::").at(-1)}`);
      expect(valueErrors.length).toBe(2);
      const ve = clusters.find((c) => c.exception_type === "ValueError")!;
      expect(ve.message_pattern).toBe("ValueError: bad value <n> at <addr>");
      expect(ve.tests).toBe(2);
      expect(ve.count).toBe(4); // both tests, in both runs
      expect(ve.inputs).toBe(2);
      expect(ve.example_node_ids.sort()).toEqual(valueErrors.sort());
      const errors = clusters.filter((c) => (c.outcomes.error ?? 0) > 0);
      expect(errors.map((c) => c.exception_type)).toEqual(["RuntimeError"]);
      expect(errors[0]!.count).toBe(
        runs[0]!.summary.counts.error! + runs[1]!.summary.counts.error!,
      );
    },
  );

  test(
    "flaky tests are the node ids pytest failed in one run and passed in the " + "other",
    async () => {
      const r = { json: both };
      const [a, b] = runs.map((run) => new Set(run.summary.failing.keys()));
      const differing = [...a!]
        .filter((id) => !b!.has(id))
        .concat([...b!].filter((id) => !a!.has(id)));
      expect(r.json.flaky.map((f: { node_id: string }) => f.node_id).sort()).toEqual(
        differing.sort(),
      );
      expect(r.json.flaky_total).toBe(1);
      expect(r.json.flaky[0].outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
        "failed",
        "passed",
      ]);
      // One run alone has no flaky test and says why it cannot tell more.
      const single = await cli(["analyze", "failures", runs[0]!.artifact, "--json"], { cwd: root });
      expect(single.json.flaky).toEqual([]);
      expect(single.json.limitations.map((l: { code: string }) => l.code)).toContain(
        "single_input",
      );
    },
  );

  test("pages follow the cursor; the text output names clusters and the flaky test", async () => {
    const first = await cli(
      ["analyze", "failures", runs[0]!.artifact, runs[1]!.artifact, "--limit", "1", "--json"],
      { cwd: root },
    );
    expect(first.json.returned).toBe(1);
    expect(first.json.next_cursor).toBeString();
    const second = await cli(
      [
        "analyze",
        "failures",
        runs[0]!.artifact,
        runs[1]!.artifact,
        "--limit",
        "1",
        "--cursor",
        first.json.next_cursor,
        "--json",
      ],
      { cwd: root },
    );
    expect(second.json.items[0].cluster_key).not.toBe(first.json.items[0].cluster_key);
    const text = await cli(["analyze", "failures", runs[0]!.artifact, runs[1]!.artifact], {
      cwd: root,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("ValueError: bad value <n> at <addr>");
    expect(text.stdout).toContain("flaky (1): test_sample.py::test_flaky [failed/passed]");
  });

  test(
    "over pytest's JUnit XML of the same run, populations and clusters agree with " + "pytest too",
    async () => {
      const imported = await cli(["import", join(root, "junit.xml"), "--json"], { cwd: root });
      expect(imported.json.extraction.adapter).toBe("junit-xml");
      const r = await cli(["analyze", "failures", imported.json.artifact_id, "--json"], {
        cwd: root,
      });
      expect(r.json.populations[0].by_outcome).toEqual(runs[0]!.summary.counts);
      const ve = r.json.items.find(
        (c: { exception_type: string | null }) => c.exception_type === "ValueError",
      );
      expect([ve.tests, ve.message_pattern]).toEqual([2, "ValueError: bad value <n> at <addr>"]);
    },
  );

  test("analyze_failures over MCP returns what the CLI returns", async () => {
    const viaCli = { json: both };
    const mcp = await connect(root);
    try {
      const r = await call(mcp.client, "analyze_failures", {
        run_or_artifact: [runs[0]!.artifact, runs[1]!.artifact],
      });
      expect(r.isError).toBe(false);
      expect(r.result.populations).toEqual(viaCli.json.populations);
      expect(r.result.items).toEqual(viaCli.json.items);
      expect(r.result.flaky).toEqual(viaCli.json.flaky);
      const none = await call(mcp.client, "analyze_failures", { run_or_artifact: [] });
      expect(none.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});

describe.skipIf(!hasPytest)("analyze failures over a cut-short report", () => {
  test(
    "a reportlog cut mid-line gives partial evidence, counting only the tests it " + "holds",
    async () => {
      const text = await Bun.file(join(root, "first.reportlog.jsonl")).text();
      const lines = text.trimEnd().split("\n");
      // Cut inside the line after test_fails's teardown: everything up to it is complete.
      const keep =
        lines.findIndex(
          (l) => l.includes('"test_sample.py::test_fails"') && l.includes('"teardown"'),
        ) + 1;
      const path = join(root, "cut.reportlog.jsonl");
      await Bun.write(path, lines.slice(0, keep).join("\n") + "\n" + lines[keep]!.slice(0, 30));
      const imported = await cli(["import", path, "--json"], { cwd: root });
      const r = await cli(["analyze", "failures", imported.json.artifact_id, "--json"], {
        cwd: root,
      });
      expect(r.json.evidence.status).toBe("partial");
      expect(r.json.populations[0].by_outcome).toEqual({ passed: 1, failed: 1 });
      expect(r.json.limitations.map((l: { code: string }) => l.code)).toContain(
        "truncated_last_line",
      );
    },
  );
});
