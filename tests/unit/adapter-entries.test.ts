/**
 * The parse worker detects formats over ADAPTER_ENTRIES and loads one parser: the entries
 * must describe exactly the adapters they load, in the registry's order, and loading them
 * must not load any parser (else the split saves nothing).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ADAPTER_ENTRIES } from "../../src/adapters/adapter-entries.ts";
import { ADAPTERS } from "../../src/adapters/registry.ts";
import { REPO } from "../helpers.ts";

const ENTRIES_FILE = join(REPO, "src", "adapters", "adapter-entries.ts");
const STATIC_IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /import\(\s*["']([^"']+)["']\s*\)/g;

/** Every module `file` loads through static, non-type-only imports: paths and bare specifiers. */
function staticClosure(file: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    for (const match of readFileSync(path, "utf8").matchAll(STATIC_IMPORT)) {
      if (match[1]) continue;
      const spec = match[2]!;
      if (spec.startsWith(".")) visit(resolve(dirname(path), spec));
      else packages.add(spec);
    }
  };
  visit(file);
  return { files, packages };
}

describe("adapter entries", () => {
  test("load the registry's adapters, in its order, each with the entry's description", async () => {
    expect(ADAPTER_ENTRIES.map((e) => e.name)).toEqual(ADAPTERS.map((a) => a.name));
    for (const [k, entry] of ADAPTER_ENTRIES.entries()) {
      const adapter = await entry.load();
      expect(adapter).toBe(ADAPTERS[k]!);
      expect(adapter.name).toBe(entry.name);
      expect(adapter.version).toBe(entry.version);
      expect(adapter.artifactKind).toBe(entry.artifactKind);
      expect(adapter.mediaType).toBe(entry.mediaType);
      expect([...adapter.tables]).toEqual([...entry.tables]);
      // The same function: detection over entries is detection over adapters.
      expect(adapter.detect).toBe(entry.detect);
    }
  });

  test("load no parser: no module an entry loads is among what the entries import", () => {
    const { files, packages } = staticClosure(ENTRIES_FILE);
    const loaded = [...readFileSync(ENTRIES_FILE, "utf8").matchAll(DYNAMIC_IMPORT)].map((m) =>
      resolve(dirname(ENTRIES_FILE), m[1]!),
    );
    expect(loaded.length).toBeGreaterThanOrEqual(ADAPTER_ENTRIES.length - 2);
    expect(loaded.filter((path) => files.has(path)).map((p) => relative(REPO, p))).toEqual([]);
    // Nor the libraries parsers and encoders use.
    expect([...packages].sort()).toEqual([]);
    // The whole of it stays small next to what the adapters load.
    const parsers = new Set(loaded.flatMap((path) => [...staticClosure(path).files]));
    expect(files.size * 4).toBeLessThan(parsers.size);
  });
});
