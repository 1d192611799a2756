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

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/gm;

describe("layering", () => {
  const files = [...sourceFiles(join(REPO, "src")), ...sourceFiles(join(REPO, "workers"))];
  test("there are source files to check", () => {
    expect(files.length).toBeGreaterThan(20);
  });
  for (const file of files) {
    const layer = layerOf(file)!;
    test(`${relative(REPO, file)} imports only allowed layers`, () => {
      const text = readFileSync(file, "utf8");
      const violations: string[] = [];
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[3] ?? match[4]!;
        const typeOnly = Boolean(match[2]);
        const target = layerOf(resolve(join(file, ".."), spec));
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
