/**
 * Execution coverage: every corpus file of coverage.py's data formats, its JSON report and
 * Cobertura XML imports, and per file the executed lines equal a computation made here
 * without the adapter: coverage.py's own schema queries run in this test against the
 * SQLite file, the legacy JSON parsed here, and the totals each report states about
 * itself. Real coverage.py (Debian python3-coverage) measures a small pytest project and
 * its own API is the reference. Hostile SQLite files (schema code, impossible page counts)
 * are refused with typed errors.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { openUntrustedSqlite } from "../../src/adapters/sqlite/untrusted-database.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { hasCoverage, NO_COVERAGE_REASON, runCoverageProject } from "./coverage-project.ts";
import { rowsOf } from "./evidence-checks.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";
import { coveragePyAdapter } from "../../src/adapters/coverage-py/adapter.ts";
import { extracted } from "./adapter-harness.ts";

const LEGACY_BANNER = "!coverage.py: This is a private format, don't read it directly!";

async function extract(bytes: Uint8Array, expected: string): Promise<NormalizedEvidence> {
  const adapter = detectAdapter({ head: headOf(bytes), displayName: "upload" });
  expect(adapter?.name).toBe(expected);
  return await extracted(adapter!, {
    bytes,
    displayName: "upload",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
}

/** Distinct executed (or, with executed=false, missing) lines per file, from the adapter's rows. */
function linesByFile(evidence: NormalizedEvidence, executed = true): Record<string, number[]> {
  const out: Record<string, Set<number>> = {};
  for (const r of rowsOf(evidence.tables.coverage_lines)) {
    if (r.kind !== "line" || r.executed !== executed) continue;
    (out[r.file as string] ??= new Set()).add(r.line as number);
  }
  return Object.fromEntries(Object.entries(out).map(([f, s]) => [f, [...s].sort((a, b) => a - b)]));
}

function arcsByFile(evidence: NormalizedEvidence): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const r of rowsOf(evidence.tables.coverage_lines))
    if (r.kind === "arc") (out[r.file as string] ??= new Set()).add(`${r.line}>${r.to_line}`);
  return Object.fromEntries(Object.entries(out).map(([f, s]) => [f, [...s].sort()]));
}

/** numbits decoded a second way: each byte as a binary string, read from its low bit. */
function numbitsLines(blob: Uint8Array): number[] {
  const lines: number[] = [];
  blob.forEach((byte, i) =>
    [...byte.toString(2).padStart(8, "0")]
      .reverse()
      .forEach((bit, j) => bit === "1" && lines.push(i * 8 + j)),
  );
  return lines;
}

/**
 * What coverage.py's CoverageData.lines() answers, from its own SQL over the file (trusted here:
 * corpus files).
 */
function referenceSqlite(path: string): {
  lines: Record<string, number[]>;
  arcs: Record<string, string[]>;
} {
  const db = new Database(path, { readonly: true });
  try {
    const names = new Set(
      (
        db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((r) => r.name),
    );
    const lines: Record<string, Set<number>> = {};
    const add = (file: string, line: number) => (lines[file] ??= new Set()).add(line);
    if (names.has("line_bits")) {
      for (const r of db
        .query(
          "SELECT file.path AS path, line_bits.numbits AS numbits FROM line_bits JOIN file " +
            "ON file.id = line_bits.file_id",
        )
        .all() as { path: string; numbits: Uint8Array }[]) {
        for (const l of numbitsLines(r.numbits)) add(r.path, l);
      }
    } else if (names.has("line")) {
      for (const r of db
        .query(
          "SELECT file.path AS path, line.lineno AS lineno FROM line JOIN file ON file.id = " +
            "line.file_id",
        )
        .all() as { path: string; lineno: number }[])
        add(r.path, r.lineno);
    }
    const arcs: Record<string, Set<string>> = {};
    for (const r of db
      .query("SELECT file.path AS path, fromno, tono FROM arc JOIN file ON file.id = arc.file_id")
      .all() as { path: string; fromno: number; tono: number }[]) {
      (arcs[r.path] ??= new Set()).add(`${r.fromno}>${r.tono}`);
      if (r.fromno > 0) add(r.path, r.fromno);
      if (r.tono > 0) add(r.path, r.tono);
    }
    return {
      lines: Object.fromEntries(
        Object.entries(lines).map(([f, s]) => [f, [...s].sort((a, b) => a - b)]),
      ),
      arcs: Object.fromEntries(Object.entries(arcs).map(([f, s]) => [f, [...s].sort()])),
    };
  } finally {
    db.close();
  }
}

describe("coverage.py data files (corpus)", () => {
  for (const file of corpusFiles("coverage-py")) {
    test(
      `${file.name}: executed lines per file as ` + `coverage.py's schema queries give them`,
      async () => {
        const bytes = loadPayload(file.path);
        const evidence = await extract(bytes, "coverage-py");
        expect(evidence.limitations.map((l) => l.code)).toContain("executed_lines_only");
        // A data file lists only what ran.
        expect(rowsOf(evidence.tables.coverage_lines).every((r) => r.executed === true)).toBe(true);
        if (new TextDecoder().decode(bytes.subarray(0, LEGACY_BANNER.length)) === LEGACY_BANNER) {
          const data = JSON.parse(new TextDecoder().decode(bytes).slice(LEGACY_BANNER.length)) as {
            lines: Record<string, number[]>;
          };
          const expected = Object.fromEntries(
            Object.entries(data.lines).map(([f, l]) => [f, [...new Set(l)].sort((a, b) => a - b)]),
          );
          expect(linesByFile(evidence)).toEqual(expected);
          expect(Object.values(expected).flat().length).toBe(309);
        } else {
          const reference = referenceSqlite(file.path);
          expect(linesByFile(evidence)).toEqual(reference.lines);
          expect(arcsByFile(evidence)).toEqual(reference.arcs);
          expect(evidence.summary.coverage_schema).toBe(file.name.startsWith("webtools") ? 2 : 7);
        }
      },
    );
  }

  test(
    "the 6.5.0 data file: 19 executed lines over 3 files, the figure its own JSON " +
      "report states",
    async () => {
      const evidence = await extract(
        loadPayload(
          corpusFiles("coverage-py").find((f) => f.name.startsWith("local-coverage"))!.path,
        ),
        "coverage-py",
      );
      const counts = Object.values(linesByFile(evidence)).map((l) => l.length);
      expect([counts.length, counts.reduce((a, b) => a + b, 0)]).toEqual([3, 19]);
      const report = JSON.parse(
        new TextDecoder().decode(loadPayload(corpusFiles("coverage-py-json")[0]!.path)),
      );
      expect(report.totals.covered_lines).toBe(19);
      expect(evidence.producerVersion).toBe("6.5.0");
    },
  );
});

describe("coverage.py data files, streamed", () => {
  test(
    "in batches to the sink, every corpus data file gives the rows, summary and limitations of " +
      "the whole-file read",
    async () => {
      const files = corpusFiles("coverage-py");
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const bytes = loadPayload(file.path);
        const whole = await extracted(coveragePyAdapter, {
          bytes,
          displayName: file.name,
          limits: DEFAULT_ADAPTER_LIMITS,
        });
        for (const chunkSize of [997, 1 << 20]) {
          const run = await runStream(coveragePyAdapter, bytes, { chunkSize });
          expect({ file: file.name, rows: streamedTableRows(run, "coverage_lines") }).toEqual({
            file: file.name,
            rows: bufferRows(whole.tables.coverage_lines),
          });
          expect(run.evidence.summary).toEqual(whole.summary);
          expect(run.evidence.limitations).toEqual(whole.limitations);
        }
      }
    },
  );
});

describe("coverage json reports and Cobertura XML (corpus)", () => {
  for (const file of corpusFiles("coverage-py-json")) {
    test(
      `${file.name}: per file, executed and ` + `missing lines are the report's own summary`,
      async () => {
        const bytes = loadPayload(file.path);
        const report = JSON.parse(new TextDecoder().decode(bytes));
        const evidence = await extract(bytes, "coverage-json");
        const executed = linesByFile(evidence);
        const missing = linesByFile(evidence, false);
        for (const [path, f] of Object.entries(report.files) as [
          string,
          { summary: { covered_lines: number; missing_lines: number; num_statements: number } },
        ][]) {
          expect([path, executed[path]?.length ?? 0, missing[path]?.length ?? 0]).toEqual([
            path,
            f.summary.covered_lines,
            f.summary.missing_lines,
          ]);
        }
        const total = (m: Record<string, number[]>) =>
          Object.values(m).reduce((n, l) => n + l.length, 0);
        expect([total(executed), total(executed) + total(missing)]).toEqual([
          report.totals.covered_lines,
          report.totals.num_statements,
        ]);
        const arcs = rowsOf(evidence.tables.coverage_lines).filter((r) => r.kind === "arc");
        expect([
          arcs.filter((r) => r.executed).length,
          arcs.filter((r) => !r.executed).length,
        ]).toEqual([report.totals.covered_branches, report.totals.missing_branches]);
      },
    );
  }

  for (const file of corpusFiles("coverage-xml")) {
    test(
      `${file.name}: lines covered and valid ` + `as the report's root attributes state`,
      async () => {
        const bytes = loadPayload(file.path);
        const xml = new TextDecoder().decode(bytes);
        const [valid, covered] = /lines-valid="(\d+)" lines-covered="(\d+)"/
          .exec(xml)!
          .slice(1)
          .map(Number) as [number, number];
        const evidence = await extract(bytes, "cobertura-xml");
        const total = (m: Record<string, number[]>) =>
          Object.values(m).reduce((n, l) => n + l.length, 0);
        expect([
          total(linesByFile(evidence)),
          total(linesByFile(evidence)) + total(linesByFile(evidence, false)),
        ]).toEqual([covered, valid]);
        const branchy = rowsOf(evidence.tables.coverage_lines).find(
          (r) => r.file === "calc.py" && r.line === 13,
        )!;
        expect([
          branchy.executed,
          branchy.hits,
          branchy.branches_covered,
          branchy.branches_total,
        ]).toEqual([false, 0, 0, 2]);
      },
    );
  }
});

describe("Cobertura XML edge cases", () => {
  const enc = new TextEncoder();
  const doc = (body: string, prolog = "") =>
    enc.encode(
      `<?xml version="1.0"?>${prolog}<coverage line-rate="0.5" ` +
        `version="x"><packages><package ` +
        `name="p"><classes>${body}</classes></package></packages></coverage>`,
    );
  test(
    "method lines name the function; a DOCTYPE naming the DTD is accepted, an internal subset " +
      "refused",
    async () => {
      const body =
        `<class name="A" filename="A.java"><methods><method name="run" ` +
        `signature="()V"><lines><line number="3" ` +
        `hits="2"/></lines></method></methods><lines><line number="1" hits="0"/><line number="3" ` +
        `hits="2"/></lines></class>`;
      const rows = rowsOf(
        (
          await extract(
            doc(
              body,
              `<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">`,
            ),
            "cobertura-xml",
          )
        ).tables.coverage_lines,
      );
      expect(rows.map((r) => [r.line, r.executed, r.hits, r.function])).toEqual([
        [1, false, 0, null],
        [3, true, 2, "run"],
      ]);
      const laughs =
        `<!DOCTYPE coverage [<!ENTITY a "aaaaaaaaaa"><!ENTITY b ` +
        `"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`;
      let error: unknown;
      try {
        await extract(doc(`<class name="A" filename="&b;"/>`, laughs), "cobertura-xml");
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FlameoxError);
      expect([(error as FlameoxError).code, (error as FlameoxError).details?.refused]).toEqual([
        "ARTIFACT_PARSE_FAILED",
        "doctype_internal_subset",
      ]);
    },
  );
});

/** A small schema-7 data file made here, with `extra` SQL run on it before it is serialized. */
function coverageDb(extra: string[] = []): Uint8Array {
  const db = new Database(":memory:");
  db.run("CREATE TABLE coverage_schema (version integer)");
  db.run("INSERT INTO coverage_schema VALUES (7)");
  db.run("CREATE TABLE meta (key text, value text, unique (key))");
  db.run("INSERT INTO meta VALUES ('has_arcs', '0'), ('version', '7.0.0')");
  db.run("CREATE TABLE file (id integer primary key, path text, unique (path))");
  db.run("INSERT INTO file VALUES (1, 'a.py')");
  db.run("CREATE TABLE context (id integer primary key, context text, unique (context))");
  db.run("INSERT INTO context VALUES (1, ''), (2, 'test_x')");
  db.run(
    "CREATE TABLE line_bits (file_id integer, context_id integer, numbits blob, unique " +
      "(file_id, context_id))",
  );
  db.run(
    "CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer, " +
      "unique (file_id, context_id, fromno, tono))",
  );
  db.run("CREATE TABLE tracer (file_id integer primary key, tracer text)");
  // Lines 1, 2 and 9 under the default context; 2 and 3 under test_x.
  db.query("INSERT INTO line_bits VALUES (1, 1, ?), (1, 2, ?)").run(
    new Uint8Array([0b110, 0b10]),
    new Uint8Array([0b1100]),
  );
  for (const sql of extra) db.run(sql);
  const bytes = db.serialize();
  db.close();
  return bytes;
}

async function refusal(bytes: Uint8Array): Promise<FlameoxError> {
  try {
    await extract(bytes, "coverage-py");
  } catch (e) {
    expect(e).toBeInstanceOf(FlameoxError);
    return e as FlameoxError;
  }
  throw new Error("expected the file to be refused");
}

describe("coverage.py SQLite: contexts and hostile files", () => {
  test("a line per file and context; the default context is the empty string", async () => {
    const rows = rowsOf((await extract(coverageDb(), "coverage-py")).tables.coverage_lines);
    expect(rows.map((r) => [r.file, r.line, r.context])).toEqual([
      ["a.py", 1, ""],
      ["a.py", 2, ""],
      ["a.py", 9, ""],
      ["a.py", 2, "test_x"],
      ["a.py", 3, "test_x"],
    ]);
  });

  test(
    "views, triggers, virtual tables and generated columns are refused before any query " +
      "touches them",
    async () => {
      const cases: [string[], string][] = [
        [["CREATE VIEW innocent AS SELECT * FROM file"], "view"],
        [["CREATE TRIGGER t AFTER INSERT ON file BEGIN DELETE FROM file; END"], "trigger"],
        [["CREATE VIRTUAL TABLE search USING fts5(path)"], "virtual_table"],
        [
          [
            "DROP TABLE tracer",
            "CREATE TABLE tracer (file_id integer primary key, tracer text)",
            "ALTER TABLE file ADD COLUMN big blob AS (zeroblob(100000000))",
          ],
          "generated_column",
        ],
      ];
      for (const [sql, refused] of cases) {
        const error = await refusal(coverageDb(sql));
        expect([error.code, error.details?.refused]).toEqual(["ARTIFACT_PARSE_FAILED", refused]);
      }
    },
  );

  test(
    "an enormous page count is refused from " + "the header, before SQLite reads a page",
    async () => {
      const bytes = coverageDb();
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      // A header page count SQLite would trust (version-valid-for equals the change counter).
      view.setUint32(28, 0x7fffffff);
      view.setUint32(92, view.getUint32(24));
      const huge = await refusal(bytes);
      expect([huge.code, huge.details?.refused, huge.details?.pages]).toEqual([
        "ARTIFACT_PARSE_FAILED",
        "page_count",
        0x7fffffff,
      ]);
      // Within the cap but more pages than the file holds: a cut-short file.
      view.setUint32(28, bytes.length / 4096 + 5);
      expect((await refusal(bytes)).code).toBe("ARTIFACT_PARSE_FAILED");
      expect((await refusal(bytes)).message).toMatch(/cut short/);
      // The cap itself, for files whose length alone exceeds it.
      let capped: unknown;
      try {
        openUntrustedSqlite(coverageDb(), "test db", { maxPages: 2 });
      } catch (e) {
        capped = e;
      }
      expect((capped as FlameoxError).details?.refused).toBe("page_count");
    },
  );

  test(
    "a damaged file is a parse failure, not a crash; a non-SQLite payload is refused " + "by name",
    async () => {
      const bytes = coverageDb();
      const damaged = new Uint8Array(bytes);
      damaged.fill(0xff, 4096, 8192); // the second page (a table's root) overwritten
      new DataView(damaged.buffer).setUint32(92, 12345); // header count no longer authoritative
      expect((await refusal(damaged)).code).toBe("ARTIFACT_PARSE_FAILED");
      const adapter = detectAdapter({ head: headOf(bytes), displayName: "x" })!;
      await expect(
        extracted(adapter, {
          bytes: new TextEncoder().encode("{}"),
          displayName: "x",
          limits: DEFAULT_ADAPTER_LIMITS,
        }),
      ).rejects.toThrow(/neither a SQLite database nor a coverage.py JSON data file/);
    },
  );

  test("a WAL-mode file (header format versions 2) is read as the main file alone", async () => {
    const bytes = coverageDb();
    const wal = new Uint8Array(bytes);
    wal[18] = 2;
    wal[19] = 2;
    const rows = rowsOf((await extract(wal, "coverage-py")).tables.coverage_lines);
    expect(rows.length).toBe(5);
    expect([wal[18], wal[19]]).toEqual([2, 2]); // the caller's bytes are left as they were
  });

  test(
    "the database is the bytes as they were when opened: changing the caller's buffer later " +
      "changes nothing",
    () => {
      const bytes = coverageDb();
      const { db } = openUntrustedSqlite(bytes, "test db");
      try {
        bytes.fill(0);
        expect(db.query("SELECT path FROM file").all()).toEqual([{ path: "a.py" }]);
        expect(() => db.run("DELETE FROM file")).toThrow();
        expect(db.query("PRAGMA trusted_schema").get()).toEqual({ trusted_schema: 0 });
      } finally {
        db.close();
      }
    },
  );
});

describe("real coverage.py on a small pytest project", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  if (!hasCoverage) {
    test.skip(`not run: ${NO_COVERAGE_REASON}`, () => {});
    return;
  }
  test(
    "data file, JSON report and Cobertura XML of one run agree with coverage.py's own " + "API",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "flameox-cov-"));
      dirs.push(dir);
      const run = runCoverageProject(join(dir, "p"));
      const data = await extract(run.data, "coverage-py");
      expect(data.summary.has_arcs).toBe(true);
      // Lines and arcs per file: CoverageData.lines() / arcs().
      expect(linesByFile(data)).toEqual(
        Object.fromEntries(Object.entries(run.api.files).map(([f, v]) => [f, v.lines])),
      );
      expect(arcsByFile(data)).toEqual(
        Object.fromEntries(
          Object.entries(run.api.files).map(([f, v]) => [
            f,
            v.arcs.map(([a, b]) => `${a}>${b}`).sort(),
          ]),
        ),
      );
      // Per dynamic context (one per test function): CoverageData with set_query_contexts.
      const rows = rowsOf(data.tables.coverage_lines).filter((r) => r.kind === "line");
      for (const context of run.api.contexts) {
        const mine: Record<string, number[]> = {};
        for (const r of rows.filter((r) => r.context === context))
          (mine[r.file as string] ??= []).push(r.line as number);
        expect([context, mine]).toEqual([context, run.api.by_context[context]!]);
      }
      expect(run.api.contexts).toContain("test_calc.test_mode");
      // The reports list the same executed lines (relative paths), plus what did not run.
      const byBase = (m: Record<string, number[]>) =>
        Object.fromEntries(Object.entries(m).map(([f, l]) => [f.split("/").at(-1)!, l]));
      const json = await extract(run.json, "coverage-json");
      expect(byBase(linesByFile(json))).toEqual(byBase(linesByFile(data)));
      expect(
        rowsOf(json.tables.coverage_lines).some((r) => r.context === "test_calc.test_positive"),
      ).toBe(true);
      expect(byBase(linesByFile(json, false)).calc).toBeUndefined();
      expect(byBase(linesByFile(json, false))["calc.py"]).toEqual([3, 5]);
      const xml = await extract(run.xml, "cobertura-xml");
      expect(byBase(linesByFile(xml))).toEqual(byBase(linesByFile(data)));
      expect(byBase(linesByFile(xml, false))["calc.py"]).toEqual([3, 5]);
    },
  );
});
