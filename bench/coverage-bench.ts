/**
 * Coverage benchmark. Generates, deterministically, a coverage.py schema-7 data file of N
 * measured files (default 100,000), each with L executed lines (default 30) under the
 * default context and a third of them again under a test context, and prints: end-to-end
 * import time and peak RSS of the CLI process (file to committed generation), `analyze
 * coverage` latency over it, and as the baseline measured in the same run, a plain
 * bun:sqlite read of every numbits blob with the lines decoded. Figures only; nothing
 * asserts a time.
 *
 *   bun bench/coverage-bench.ts [--files 100000] [--lines 30] [--keep]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { measureProcess, workerPeak } from "./measure-process.ts";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "100000" },
    lines: { type: "string", default: "30" },
    keep: { type: "boolean", default: false },
  },
});
const FILES = Number(values.files);
const LINES = Number(values.lines);
const MB = 1024 * 1024;
const cliPath = resolve(import.meta.dir, "..", "src", "cli", "main.ts");
const dir = mkdtempSync(join(tmpdir(), "flameox-bench-"));

function numbits(lines: number[]): Uint8Array {
  const out = new Uint8Array((Math.max(...lines) >> 3) + 1);
  for (const l of lines) out[l >> 3]! |= 1 << (l & 7);
  return out;
}

function writeDataFile(path: string): number {
  const db = new Database(path);
  db.run("CREATE TABLE coverage_schema (version integer)");
  db.run("INSERT INTO coverage_schema VALUES (7)");
  db.run("CREATE TABLE meta (key text, value text, unique (key))");
  db.run("INSERT INTO meta VALUES ('has_arcs', '0'), ('version', '7.4.0')");
  db.run("CREATE TABLE file (id integer primary key, path text, unique (path))");
  db.run("CREATE TABLE context (id integer primary key, context text, unique (context))");
  db.run("INSERT INTO context VALUES (1, ''), (2, 'tests/test_app.py::test_main|run')");
  db.run(
    "CREATE TABLE line_bits (file_id integer, context_id integer, numbits blob, unique " +
      "(file_id, context_id))",
  );
  db.run(
    "CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer, " +
      "unique (file_id, context_id, fromno, tono))",
  );
  db.run("CREATE TABLE tracer (file_id integer primary key, tracer text)");
  let rows = 0;
  db.transaction(() => {
    const file = db.query("INSERT INTO file VALUES (?, ?)");
    const bits = db.query("INSERT INTO line_bits VALUES (?, ?, ?)");
    for (let f = 1; f <= FILES; f++) {
      file.run(f, `/home/dev/project/src/pkg${f % 500}/module_${f}.py`);
      const lines = Array.from({ length: LINES }, (_, i) => 1 + i * 3 + (f % 3));
      bits.run(f, 1, numbits(lines));
      rows += lines.length;
      if (f % 3 === 0) {
        bits.run(f, 2, numbits(lines.slice(0, LINES >> 1)));
        rows += LINES >> 1;
      }
    }
  })();
  db.close();
  return rows;
}

const measure = (argv: string[]) => measureProcess(argv, dir);

try {
  const path = join(dir, "big.coverage");
  const rows = writeDataFile(path);
  const bytes = statSync(path).size;
  const baselineStart = performance.now();
  const db = new Database(path, { readonly: true });
  let decoded = 0;
  for (const r of db.query("SELECT numbits FROM line_bits").iterate() as Iterable<{
    numbits: Uint8Array;
  }>) {
    for (const byte of r.numbits)
      for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) decoded++;
  }
  db.close();
  const baselineMs = performance.now() - baselineStart;
  await measure([process.execPath, cliPath, "init", dir, "--json"]);
  const imported = await measure([process.execPath, cliPath, "import", path, "--json"]);
  const run = JSON.parse(imported.stdout).run_id as string;
  const analyzed = await measure([
    process.execPath,
    cliPath,
    "analyze",
    "coverage",
    run,
    "--limit",
    "10",
    "--json",
  ]);
  const result = JSON.parse(analyzed.stdout);
  console.log(
    `coverage.py data file: ${FILES} files, ${rows} executed (file, context, line) ` +
      `rows, ${(bytes / MB).toFixed(1)} MB`,
  );
  console.log(
    `  bun:sqlite read + numbits decode (baseline, in process): ${baselineMs.toFixed(0)} ` +
      `ms, ${decoded} lines`,
  );
  console.log(
    `  import (CLI process, file to committed generation): ${imported.wallMs.toFixed(0)} ms, ` +
      `peak RSS ${(imported.maxRss / MB).toFixed(0)} MB (maxRSS, which Linux raises to this ` +
      `benchmark's own size at the spawn), parse worker's own ` +
      `peak ${(workerPeak(imported.stdout) / MB).toFixed(0)} MB`,
  );
  console.log(
    `  analyze coverage: ${analyzed.wallMs.toFixed(0)} ms, peak ` +
      `RSS ${(analyzed.maxRss / MB).toFixed(0)} MB; ${result.totals.files} ` +
      `files, ${result.totals.lines_executed} lines executed`,
  );
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
