/**
 * No thread of a parse worker can reach apache-arrow: every import pays for the worker's
 * start, and apache-arrow was about half of its module loading (~45 ms). Parts go to
 * parquet-wasm as IPC streams written by src/storage/arrow-ipc-stream.ts instead. Checked on
 * the static module graph, dynamic imports included, from each entry a worker runs: a module
 * that only loads on rare paths would escape a probe of one import's loaded modules
 * (worker-start.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { REPO } from "../helpers.ts";

const ENTRIES = [
  "workers/parse.ts",
  "workers/parquet-encode-thread.ts",
  "workers/piece-thread.ts",
  "workers/nest-thread.ts",
];

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Every module reachable from `entry` (files of this repository, packages by their name). */
function moduleGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [join(REPO, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (path.startsWith(".")) {
        // Assets imported as files (the scanners' .wasm) hold no imports.
        const resolved = Bun.resolveSync(path, dirname(file));
        if (/\.[cm]?[jt]s$/.test(resolved)) pending.push(resolved);
      } else if (!path.startsWith("node:") && !path.startsWith("bun"))
        packages.add(
          path.startsWith("@") ? path.split("/").slice(0, 2).join("/") : path.split("/")[0]!,
        );
    }
  }
  return { files, packages };
}

describe("parse worker module graph", () => {
  for (const entry of ENTRIES) {
    test(`${entry} never imports apache-arrow`, () => {
      const { files, packages } = moduleGraph(entry);
      // The walk sees the graph: the entry reaches modules and packages of its own.
      expect(files.size).toBeGreaterThan(1);
      expect(packages.has("apache-arrow")).toBe(false);
    });
  }

  test("the walk finds apache-arrow where it is imported", () => {
    expect(moduleGraph("src/storage/parquet.ts").packages.has("apache-arrow")).toBe(true);
  });
});
