/**
 * The corpus lanes, stated rather than implied. The vendored files are exactly the manifest's
 * (same bytes, permissive licenses, attributed in NOTICE). Every file left outside is either
 * checked here (external lane: FLAMEOX_CORPUS names the corpus) or listed as a skipped test
 * with the reason it did not run, so bun's summary counts what this lane did not cover.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CORPUS } from "../helpers.ts";
import { EXTERNAL_CORPUS } from "./corpus-files.ts";

const PERMISSIVE = new Set(["Apache-2.0", "MIT", "BSD-3-Clause", "MIT OR Apache-2.0"]);

function tsv(path: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  const names = header!.split("\t");
  return lines.map((line) => Object.fromEntries(line.split("\t").map((v, i) => [names[i]!, v])));
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const vendored = tsv(join(CORPUS, "MANIFEST.tsv"));
const external = tsv(join(CORPUS, "EXTERNAL.tsv"));

describe("vendored corpus (default lane)", () => {
  test("every manifest row is present with its size and sha256, and nothing else is", () => {
    expect(vendored.length).toBeGreaterThan(50);
    for (const row of vendored) {
      const path = join(CORPUS, row.relpath!);
      expect([row.relpath, statSync(path).size, sha256(path)]).toEqual([
        row.relpath,
        Number(row.bytes),
        row.sha256,
      ]);
    }
    const onDisk = readdirSync(CORPUS, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((dir) => readdirSync(join(CORPUS, dir.name)).map((name) => `${dir.name}/${name}`))
      .sort();
    expect(onDisk).toEqual(vendored.map((r) => r.relpath!).sort());
  });

  test(
    "only permissive licenses (or this project's own tool output), each file attributed in " +
      "NOTICE",
    () => {
      const notice = readFileSync(join(CORPUS, "NOTICE"), "utf8");
      for (const row of vendored) {
        expect([
          row.relpath,
          PERMISSIVE.has(row.license!) || row.license!.startsWith("n/a (our own"),
        ]).toEqual([row.relpath, true]);
        expect([row.relpath, notice.includes(`  ${row.relpath}\n`)]).toEqual([row.relpath, true]);
      }
      // Nothing vendored is also listed as external, and every external row says why it is outside.
      const inside = new Set(vendored.map((r) => r.relpath));
      for (const row of external)
        expect([row.relpath, inside.has(row.relpath), (row.reason ?? "").length > 0]).toEqual([
          row.relpath,
          false,
          true,
        ]);
    },
  );
});

describe("external corpus lane", () => {
  const state =
    EXTERNAL_CORPUS === null
      ? `off: FLAMEOX_CORPUS is unset (run \`make test-external\`, which reads ../shared/corpus)`
      : existsSync(EXTERNAL_CORPUS)
        ? `on: ${EXTERNAL_CORPUS}`
        : `broken: FLAMEOX_CORPUS=${EXTERNAL_CORPUS} does not exist`;

  test(`lane state — ${external.length} external files, lane ${state.split(":")[0]}`, () => {
    console.log(
      `external corpus lane ${state}; ${external.length} files (copyleft/unclear licenses or ` +
        `large) ` +
        (EXTERNAL_CORPUS !== null && existsSync(EXTERNAL_CORPUS)
          ? "are read by the corpus suites in this run"
          : "were NOT tested in this run"),
    );
    // Naming a corpus that is not there is an error, not a quiet fallback to the vendored files.
    if (EXTERNAL_CORPUS !== null) expect(existsSync(EXTERNAL_CORPUS)).toBe(true);
  });

  for (const row of external) {
    const name = `${row.relpath} (${row.reason})`;
    const root = EXTERNAL_CORPUS;
    if (root === null || !existsSync(root)) {
      test.skip(`${name} — not run: external lane ${state.split(":")[0]}`, () => {});
      continue;
    }
    test(`${name}: present with the manifest's sha256`, () => {
      expect(sha256(join(root, row.relpath!))).toBe(row.sha256!);
    });
  }
});
