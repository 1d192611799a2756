/**
 * Copies the part of the real-artifact corpus that the default test lane needs into
 * fixtures/corpus/, so that the tests pass on a fresh clone with nothing beside it.
 *
 *   bun scripts/vendor-corpus.ts [CORPUS_DIR]     (default: $FLAMEOX_CORPUS or ../shared/corpus)
 *
 * A file is vendored when its source license is permissive (or it is output this project
 * produced itself with the real tool) and it is small; everything else stays in the external
 * corpus and is read only by the external lane (`make test-external`). The policy is here,
 * not in anyone's head: rerunning the script gives the same folder.
 *   fixtures/corpus/MANIFEST.tsv   the vendored rows, columns as in the source manifest
 *   fixtures/corpus/EXTERNAL.tsv   every row left outside, with the reason
 *   fixtures/corpus/NOTICE         attribution per source repository and license
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "..");
const SOURCE = resolve(
  process.argv[2] ?? process.env.FLAMEOX_CORPUS ?? join(REPO, "..", "shared", "corpus"),
);
const TARGET = join(REPO, "fixtures", "corpus");

/** Licenses that allow redistribution in an Apache-2.0 repository with attribution only. */
const PERMISSIVE = new Set(["Apache-2.0", "MIT", "BSD-3-Clause", "MIT OR Apache-2.0"]);
/** Files the corpus maintainers produced locally with the real tool; no third-party rights. */
const OWN_OUTPUT = /^n\/a \(our own generated output\)$/;
/** Formats the default lane's adapter and CLI tests read file by file. */
const TESTED_FORMATS = new Set([
  "callgrind",
  "chrome-trace",
  "collapsed-stacks",
  "dhat",
  "massif",
  "fxprofiler-processed",
  "gecko",
  "cpuprofile",
  "gbench",
  "heapprofile",
  "hyperfine",
  "otlp-json",
  "otlp-proto",
  "perf-script",
  "perfetto",
  "pprof",
  "pprof-legacy",
  "pyperf",
  "pytest-benchmark",
  "speedscope",
  "coverage-py",
  "coverage-py-json",
  "coverage-xml",
  "nvbench",
  "pytorch-et",
  // Its one file is a pipit events table, not an nsys stats report: tested as one that is refused.
  "nsys-stats-csv",
]);
/** Size caps (bytes as stored): tested formats get their real files, other formats only small
 *  ones, enough for the "no other format is claimed" detection checks. */
const TESTED_CAP = 384 * 1024;
const OTHER_CAP = 16 * 1024;
/** Formats whose smallest real files pass the tested cap: NVBench writes every state of a
 *  sweep with all its summaries, and the permissively licensed outputs are ~530 KiB each. */
const FORMAT_CAP: Record<string, number> = { nvbench: 544 * 1024 };

interface Row {
  relpath: string;
  format: string;
  producer: string;
  source_repo: string;
  source_path: string;
  commit: string;
  license: string;
  bytes: number;
  sha256: string;
}

function readManifest(path: string): { header: string; rows: Row[] } {
  const [header, ...lines] = readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.length > 0);
  const rows = lines.map((line) => {
    const [relpath, format, producer, source_repo, source_path, commit, license, bytes, sha256] =
      line.replace(/\r$/, "").split("\t");
    return {
      relpath,
      format,
      producer,
      source_repo,
      source_path,
      commit,
      license,
      bytes: Number(bytes),
      sha256,
    } as Row;
  });
  return { header: header!, rows };
}

function exclusion(row: Row): string | null {
  const own = OWN_OUTPUT.test(row.license);
  if (!own && !PERMISSIVE.has(row.license))
    return `license ${row.license} (copyleft or not permissive)`;
  const folder = row.relpath.split("/")[0]!;
  const cap = FORMAT_CAP[folder] ?? (TESTED_FORMATS.has(folder) ? TESTED_CAP : OTHER_CAP);
  if (row.bytes > cap)
    return (
      `size ${row.bytes} bytes over the ${cap / 1024} KiB cap ` +
      `for ${TESTED_FORMATS.has(folder) ? "tested" : "other"} formats`
    );
  return null;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const { header, rows } = readManifest(join(SOURCE, "MANIFEST.tsv"));
rmSync(TARGET, { recursive: true, force: true });
const vendored: Row[] = [];
const external: string[] = [];
for (const row of rows) {
  const reason = exclusion(row);
  if (reason !== null) {
    external.push([row.relpath, row.license, row.bytes, row.sha256, reason].join("\t"));
    continue;
  }
  const from = join(SOURCE, row.relpath);
  const digest = sha256(readFileSync(from));
  if (digest !== row.sha256)
    throw new Error(`${row.relpath}: sha256 ${digest} differs from the manifest's ${row.sha256}`);
  mkdirSync(dirname(join(TARGET, row.relpath)), { recursive: true });
  copyFileSync(from, join(TARGET, row.relpath));
  vendored.push(row);
}

const rowLine = (r: Row) =>
  [
    r.relpath,
    r.format,
    r.producer,
    r.source_repo,
    r.source_path,
    r.commit,
    r.license,
    r.bytes,
    r.sha256,
  ].join("\t");
writeFileSync(join(TARGET, "MANIFEST.tsv"), `${header}\n${vendored.map(rowLine).join("\n")}\n`);
writeFileSync(
  join(TARGET, "EXTERNAL.tsv"),
  `relpath\tlicense\tbytes\tsha256\treason\n${external.join("\n")}\n`,
);

const bySource = new Map<string, { license: string; files: string[] }>();
for (const r of vendored) {
  const key = OWN_OUTPUT.test(r.license)
    ? "flameox (produced with the real tools for this project)"
    : r.source_repo;
  const entry = bySource.get(key) ?? {
    license: OWN_OUTPUT.test(r.license) ? "Apache-2.0 (this repository's license)" : r.license,
    files: [],
  };
  entry.files.push(r.relpath);
  bySource.set(key, entry);
}
const notice = [
  "Third-party test data in fixtures/corpus/",
  "",
  "These files are real tool output copied unmodified from the repositories named below, for",
  "use as test inputs only. Each remains under its source's license; MANIFEST.tsv gives the",
  "source path, commit, license and sha256 of every file. Files whose license is copyleft or",
  "unclear, and large files, are not included (see EXTERNAL.tsv).",
  "",
  ...[...bySource]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([source, { license, files }]) => [
      `${source.includes("/") ? `https://github.com/${source}` : source} — ${license}`,
      ...files.map((f) => `  ${f}`),
      "",
    ]),
].join("\n");
writeFileSync(join(TARGET, "NOTICE"), notice);
const total = vendored.reduce((a, r) => a + r.bytes, 0);
console.log(
  `vendored ${vendored.length} files (${total} bytes) into ${TARGET}; ${external.length} ` +
    `left in the external corpus`,
);
