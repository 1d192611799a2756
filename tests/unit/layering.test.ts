/**
 * Keeps the dependency direction of DESIGN.md from rotting: each layer may import only
 * the layers listed here (type-only imports included, since a type dependency is still a
 * design dependency).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { REPO } from "../helpers.ts";

const ALLOWED: Record<string, string[]> = {
  domain: ["domain"],
  storage: ["domain", "storage"],
  broker: ["domain", "broker"],
  adapters: ["domain", "adapters"],
  analysis: ["domain", "storage", "analysis"],
  application: ["domain", "storage", "broker", "adapters", "analysis", "application"],
  cli: ["domain", "application", "cli", "mcp", "analysis-types", "workers"],
  mcp: ["domain", "application", "mcp", "analysis-types"],
  workers: ["domain", "adapters", "storage"],
};

function importedFiles(file: string): { path: string; typeOnly: boolean; spec: string }[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((match) => {
    const spec = match[3] ?? match[4]!;
    return { spec, typeOnly: Boolean(match[2]), path: resolve(join(file, ".."), spec) };
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function layerOf(path: string): string | null {
  const rel = relative(REPO, path).split("/");
  if (rel[0] === "workers") return "workers";
  return rel[0] === "src" ? (rel[1] ?? null) : null;
}

/**
 * Inside src/adapters, a format's folder imports only itself, the top-level interface
 * files (never the registry, which imports every format) and the shared cores named
 * here: what two formats both need lives in a core, so no format leans on another's
 * internals and a format can be removed without touching its siblings.
 */
const ADAPTER_CORES = [
  "common",
  "wasm",
  "trace-events",
  "v8-sample-tree",
  "benchmarks",
  "test-results",
  "coverage-lines",
  "sqlite",
];
/**
 * Dialects: formats that are read into another format's own model and normalized by it
 * (legacy pprof text and binary profiles become a pprof Profile; an `nsys stats`
 * cuda_gpu_trace report becomes the Nsight export's device events and tracks).
 */
const ADAPTER_DIALECTS: Record<string, string[]> = {
  "pprof-legacy": ["pprof"],
  "nsys-stats-csv": ["nsys-sqlite"],
};
const ADAPTERS = join(REPO, "src", "adapters");

/**
 * The top-level entry of src/adapters a path is in: a folder name, or a file name for top-level
 * files.
 */
function adapterUnit(path: string): string | null {
  const rel = relative(ADAPTERS, path);
  if (rel.startsWith("..")) return null;
  return rel.split("/")[0]!;
}

const IMPORT =
  /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/gm;

describe("layering", () => {
  const files = [...sourceFiles(join(REPO, "src")), ...sourceFiles(join(REPO, "workers"))];
  test("there are source files to check", () => {
    expect(files.length).toBeGreaterThan(20);
  });
  for (const file of files) {
    const layer = layerOf(file)!;
    test(`${relative(REPO, file)} imports only allowed layers`, () => {
      const violations: string[] = [];
      for (const { spec, typeOnly, path } of importedFiles(file)) {
        const target = layerOf(path);
        if (!target || target === layer) continue;
        const allowed = ALLOWED[layer] ?? [];
        if (allowed.includes(target)) continue;
        if (typeOnly && target === "analysis" && allowed.includes("analysis-types")) continue;
        violations.push(`${spec} (${target})`);
      }
      expect(violations).toEqual([]);
    });
  }
});

describe("adapter folders", () => {
  const files = sourceFiles(ADAPTERS);
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = adapterUnit(file)!;
    const imports = importedFiles(file).flatMap(({ spec, path }) => {
      const to = adapterUnit(path);
      return to === null || to === from ? [] : [{ spec, to }];
    });
    for (const { to } of imports) {
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
    if (from === "registry.ts" || from.endsWith(".ts")) continue;
    test(`${relative(REPO, file)} imports no sibling format`, () => {
      const violations = imports
        .filter(
          ({ to }) =>
            to === "registry.ts" ||
            to === "adapter-entries.ts" ||
            (!to.endsWith(".ts") &&
              !ADAPTER_CORES.includes(to) &&
              !(ADAPTER_DIALECTS[from] ?? []).includes(to)),
        )
        .map(({ spec, to }) => `${spec} (${to})`);
      expect(violations).toEqual([]);
    });
  }

  test("the cores and dialects named here exist", () => {
    for (const name of [
      ...ADAPTER_CORES,
      ...Object.keys(ADAPTER_DIALECTS),
      ...Object.values(ADAPTER_DIALECTS).flat(),
    ]) {
      expect(statSync(join(ADAPTERS, name)).isDirectory()).toBe(true);
    }
  });

  test("no import cycle between the top-level folders and files of src/adapters", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (unit: string): void => {
      state.set(unit, "open");
      path.push(unit);
      for (const next of edges.get(unit) ?? []) {
        if (state.get(next) === "open")
          cycles.push([...path.slice(path.indexOf(next)), next].join(" -> "));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(unit, "done");
    };
    for (const unit of [...edges.keys()].sort()) if (!state.has(unit)) visit(unit);
    expect(cycles).toEqual([]);
  });
});
