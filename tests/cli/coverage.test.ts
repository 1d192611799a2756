/**
 * The coverage recipe end to end: coverage files are imported through the CLI and `analyze
 * coverage` / analyze_coverage are checked against figures computed here without flameox:
 * coverage.py's schema queries over the data file, the totals the JSON report states about
 * each file, set differences of the executed lines of two data files, and (when Debian's
 * coverage.py is installed) coverage.py's own API over two real runs of a pytest project.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, tempWorkspace } from "../helpers.ts";
import { call, connect } from "../mcp/mcp-helpers.ts";
import { corpusFiles } from "../adapters/corpus-files.ts";
import {
  hasCoverage,
  NO_COVERAGE_REASON,
  runCoverageProject,
} from "../adapters/coverage-project.ts";

type Json = any;

let root = "";
let cleanup = () => {};
beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
}, 30_000);
afterAll(() => cleanup());

async function importFile(path: string): Promise<{ run: string; artifact: string }> {
  const r = await cli(["import", path, "--json"], { cwd: root });
  expect(r.code).toBe(0);
  const json = r.json as Json;
  return { run: json.run_id, artifact: json.artifact_id };
}

async function coverage(args: string[]): Promise<Json> {
  const r = await cli(["analyze", "coverage", ...args, "--json"], { cwd: root });
  expect(r.code).toBe(0);
  return r.json;
}

/**
 * Executed lines per file, as coverage.py's queries over line_bits give them (numbits decoded
 * here).
 */
function sqliteLines(path: string): Record<string, number[]> {
  const db = new Database(path, { readonly: true });
  const out: Record<string, Set<number>> = {};
  for (const r of db
    .query(
      "SELECT file.path AS path, numbits FROM line_bits JOIN file ON file.id = line_bits.file_id",
    )
    .all() as { path: string; numbits: Uint8Array }[]) {
    r.numbits.forEach((byte, i) => {
      for (let bit = 0; bit < 8; bit++)
        if ((byte >> bit) & 1) (out[r.path] ??= new Set()).add(i * 8 + bit);
    });
  }
  db.close();
  return Object.fromEntries(Object.entries(out).map(([f, s]) => [f, [...s].sort((a, b) => a - b)]));
}

/** A schema-7 data file with these executed lines per file, split over two contexts. */
function writeDataFile(path: string, files: Record<string, number[]>): void {
  const db = new Database(":memory:");
  db.run("CREATE TABLE coverage_schema (version integer)");
  db.run("INSERT INTO coverage_schema VALUES (7)");
  db.run("CREATE TABLE meta (key text, value text, unique (key))");
  db.run("INSERT INTO meta VALUES ('has_arcs', '0'), ('version', '7.4.0')");
  db.run("CREATE TABLE file (id integer primary key, path text, unique (path))");
  db.run("CREATE TABLE context (id integer primary key, context text, unique (context))");
  db.run("INSERT INTO context VALUES (1, ''), (2, 'test_a')");
  db.run(
    "CREATE TABLE line_bits (file_id integer, context_id integer, numbits blob, unique " +
      "(file_id, context_id))",
  );
  db.run(
    "CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer, " +
      "unique (file_id, context_id, fromno, tono))",
  );
  db.run("CREATE TABLE tracer (file_id integer primary key, tracer text)");
  const bits = (lines: number[]) => {
    const out = new Uint8Array(Math.max(0, ...lines) / 8 + 1);
    for (const l of lines) out[l >> 3]! |= 1 << (l & 7);
    return out;
  };
  Object.entries(files).forEach(([path, lines], i) => {
    db.query("INSERT INTO file VALUES (?, ?)").run(i + 1, path);
    // Odd lines under the default context, even ones under test_a; line 1 under both.
    db.query("INSERT INTO line_bits VALUES (?, 1, ?), (?, 2, ?)").run(
      i + 1,
      bits(lines.filter((l) => l % 2 === 1)),
      i + 1,
      bits(lines.filter((l) => l % 2 === 0 || l === 1)),
    );
  });
  writeFileSync(path, db.serialize());
  db.close();
}

describe("analyze coverage over the corpus", () => {
  test(
    "a data file: lines executed per file as coverage.py's queries give them, no totals, and " +
      "it says why",
    async () => {
      const file = corpusFiles("coverage-py").find((f) => f.name.startsWith("local-coverage"))!;
      const imported = await cli(["import", file.path, "--json"], { cwd: root });
      const run = (imported.json as Json).run_id;
      // The import names the recipe to ask next.
      expect([(imported.json as Json).next_tool, (imported.json as Json).next_arguments]).toEqual([
        "analyze_coverage",
        { run_or_artifact: run },
      ]);
      const r = await coverage([run]);
      const expected = sqliteLines(file.path);
      expect(r.evidence.status).toBe("available");
      expect(Object.fromEntries(r.items.map((f: Json) => [f.file, f.lines_executed]))).toEqual(
        Object.fromEntries(Object.entries(expected).map(([f, l]) => [f, l.length])),
      );
      expect(
        r.items.every((f: Json) => f.lines_total === null && f.percent_executed === null),
      ).toBe(true);
      expect([r.totals.lines_executed, r.totals.lines_total, r.totals.files_without_total]).toEqual(
        [19, null, 3],
      );
      expect(r.limitations.map((l: Json) => l.code)).toContain("executed_lines_only");
    },
  );

  test(
    "the JSON report and the Cobertura XML of the same run: per file, the report's own covered " +
      "/ statements",
    async () => {
      const jsonFile = corpusFiles("coverage-py-json")[0]!.path;
      const report = JSON.parse(readFileSync(jsonFile, "utf8"));
      const expected = Object.fromEntries(
        Object.entries(
          report.files as Record<
            string,
            { summary: { covered_lines: number; num_statements: number } }
          >,
        ).map(([f, v]) => [
          f,
          [
            v.summary.covered_lines,
            v.summary.num_statements,
            Math.round((v.summary.covered_lines / v.summary.num_statements) * 10000) / 100,
          ],
        ]),
      );
      for (const path of [jsonFile, corpusFiles("coverage-xml")[0]!.path]) {
        const { artifact } = await importFile(path);
        const r = await coverage([artifact]);
        expect(
          Object.fromEntries(
            r.items.map((f: Json) => [
              f.file,
              [f.lines_executed, f.lines_total, f.percent_executed],
            ]),
          ),
        ).toEqual(expected);
        expect([r.totals.lines_executed, r.totals.lines_total]).toEqual([
          report.totals.covered_lines,
          report.totals.num_statements,
        ]);
      }
    },
  );
});

describe("analyze coverage --diff", () => {
  const before = {
    "/src/app.py": [1, 2, 3, 5, 8, 13],
    "/src/gone.py": [1, 2],
    "/src/same.py": [1, 4],
  };
  const after = {
    "/src/app.py": [1, 2, 4, 5, 21, 34, 55],
    "/src/new.py": [3, 7],
    "/src/same.py": [1, 4],
  };
  let base = "";
  let head = "";
  beforeAll(async () => {
    writeDataFile(join(root, "before.coverage"), before);
    writeDataFile(join(root, "after.coverage"), after);
    base = (await importFile(join(root, "before.coverage"))).run;
    head = (await importFile(join(root, "after.coverage"))).run;
  }, 30_000);

  test(
    "per file: newly executed and no longer executed are the set differences of the " + "two runs",
    async () => {
      const r = await coverage([head, "--diff", base]);
      const files = [...new Set([...Object.keys(before), ...Object.keys(after)])];
      const diff = (a: number[] = [], b: number[] = []) => a.filter((l) => !b.includes(l));
      const expected = Object.fromEntries(
        files.map((f) => [
          f,
          [
            diff(after[f as keyof typeof after], before[f as keyof typeof before]),
            diff(before[f as keyof typeof before], after[f as keyof typeof after]),
          ],
        ]),
      );
      expect(
        Object.fromEntries(
          r.items.map((f: Json) => [f.file, [f.newly_executed_lines, f.no_longer_executed_lines]]),
        ),
      ).toEqual(expected);
      expect(r.items.map((f: Json) => f.newly_executed + f.no_longer_executed)).toEqual([
        7, 2, 2, 0,
      ]); // most change first
      expect([r.totals.newly_executed, r.totals.no_longer_executed]).toEqual([6, 5]);
      expect(r.base).toEqual({ type: "run", id: base });
    },
  );

  test(
    "pages follow the cursor; the text output lists changed lines; MCP returns what the CLI " +
      "returns",
    async () => {
      const first = await coverage([head, "--diff", base, "--limit", "1"]);
      expect([first.returned, first.total]).toEqual([1, 4]);
      const second = await coverage([
        head,
        "--diff",
        base,
        "--limit",
        "1",
        "--cursor",
        first.next_cursor,
      ]);
      expect(second.items[0].file).not.toBe(first.items[0].file);
      const text = await cli(["analyze", "coverage", head, "--diff", base], { cwd: root });
      expect(text.stdout).toContain("4,21,34,55");
      expect(text.stdout).toContain("6 newly executed, 5 no longer executed");
      const mcp = await connect(root);
      try {
        const viaCli = await coverage([head, "--diff", base]);
        const r = await call(mcp.client, "analyze_coverage", { run_or_artifact: head, base });
        expect(r.isError).toBe(false);
        expect([r.result.items, r.result.totals]).toEqual([viaCli.items, viaCli.totals]);
        const bad = await call(mcp.client, "analyze_coverage", { run_or_artifact: head, extra: 1 });
        expect(bad.isError).toBe(true);
      } finally {
        await mcp.close();
      }
    },
  );

  test("by function where the evidence names them (Cobertura methods)", async () => {
    const xml = (hits: Record<number, number>) =>
      `<?xml version="1.0"?><coverage line-rate="0.5" version="x"><packages><package ` +
      `name="p"><classes><class name="A" filename="A.java"><methods>` +
      `<method name="run" signature="()V"><lines><line number="3" hits="${hits[3]}"/><line ` +
      `number="4" hits="${hits[4]}"/></lines></method>` +
      `<method name="stop" signature="()V"><lines><line number="8" ` +
      `hits="${hits[8]}"/></lines></method></methods>` +
      `<lines>${[3, 4, 8].map((n) => `<line number="${n}" hits="${hits[n]}"/>`).join("")}` +
      `</lines></class></classes></package></packages></coverage>`;
    writeFileSync(join(root, "a.xml"), xml({ 3: 1, 4: 0, 8: 2 }));
    writeFileSync(join(root, "b.xml"), xml({ 3: 1, 4: 5, 8: 0 }));
    const a = await importFile(join(root, "a.xml"));
    const b = await importFile(join(root, "b.xml"));
    const r = await coverage([b.run, "--diff", a.run]);
    expect(r.items[0].functions).toEqual([
      { function: "run", newly_executed: 1, no_longer_executed: 0 },
      { function: "stop", newly_executed: 0, no_longer_executed: 1 },
    ]);
    expect([r.items[0].lines_executed, r.items[0].lines_total]).toEqual([2, 3]);
  });

  test("a run without coverage evidence is unavailable, with the tool to call next", async () => {
    writeFileSync(
      join(root, "r.jsonl"),
      '{"pytest_version": "8.0.0", "$report_type": "SessionStart"}\n',
    );
    const { run } = await importFile(join(root, "r.jsonl"));
    const r = await coverage([run]);
    expect([r.evidence.status, r.evidence.next_tool]).toEqual(["unavailable", "import_artifact"]);
  });
});

describe("hostile coverage databases through the import pipeline", () => {
  test("a view named like coverage.py's line table is refused with a typed error; the artifact " +
    "is kept and the workspace stays valid", async () => {
    const db = new Database(":memory:");
    db.run("CREATE TABLE coverage_schema (version integer)");
    db.run("INSERT INTO coverage_schema VALUES (7)");
    db.run("CREATE TABLE file (id integer primary key, path text)");
    db.run(
      "CREATE VIEW line_bits AS SELECT 1 AS file_id, 1 AS context_id, zeroblob(100000000) AS " +
        "numbits",
    );
    writeFileSync(join(root, "evil.coverage"), db.serialize());
    db.close();
    const r = await cli(["import", join(root, "evil.coverage"), "--json"], { cwd: root });
    expect(r.code).toBe(4);
    const error = (r.json as Json).error;
    expect(error.code).toBe("ARTIFACT_PARSE_FAILED");
    expect(error.message).toContain('declares a view ("line_bits")');
    expect(error.details.artifact_id).toStartWith("sha256:");
    const validate = await cli(["validate", "--json"], { cwd: root });
    expect((validate.json as Json).ok).toBe(true);
  }, 30_000);
});

describe("analyze coverage over real coverage.py runs", () => {
  if (!hasCoverage) {
    test.skip(`not run: ${NO_COVERAGE_REASON}`, () => {});
    return;
  }
  test("two runs of a pytest project: the diff equals the difference of coverage.py's own " +
    "CoverageData.lines()", async () => {
    // Both runs in the same folder, so the same file has the same path in both.
    const a = runCoverageProject(join(root, "proj"));
    const b = runCoverageProject(join(root, "proj"), { COVER_NEGATIVE: "1" });
    writeFileSync(join(root, "a.coverage"), a.data);
    writeFileSync(join(root, "b.coverage"), b.data);
    const ra = (await importFile(join(root, "a.coverage"))).run;
    const rb = (await importFile(join(root, "b.coverage"))).run;
    const single = await coverage([rb]);
    expect(Object.fromEntries(single.items.map((f: Json) => [f.file, f.lines_executed]))).toEqual(
      Object.fromEntries(Object.entries(b.api.files).map(([f, v]) => [f, v.lines.length])),
    );
    expect(
      single.items.every((f: Json) => f.arcs_executed === b.api.files[f.file]!.arcs.length),
    ).toBe(true);
    const diff = await coverage([rb, "--diff", ra]);
    const files = [...new Set([...Object.keys(a.api.files), ...Object.keys(b.api.files)])];
    const lines = (run: typeof a, f: string) => run.api.files[f]?.lines ?? [];
    const expected = Object.fromEntries(
      files.map((f) => [
        f,
        [
          lines(b, f).filter((l) => !lines(a, f).includes(l)),
          lines(a, f).filter((l) => !lines(b, f).includes(l)),
        ],
      ]),
    );
    expect(
      Object.fromEntries(
        diff.items.map((f: Json) => [f.file, [f.newly_executed_lines, f.no_longer_executed_lines]]),
      ),
    ).toEqual(expected);
    // calc.py's negative and zero branches ran only in the second run.
    expect(expected[`${a.dir}/calc.py`]![0]).toEqual([3, 5]);
  }, 60_000);
});
