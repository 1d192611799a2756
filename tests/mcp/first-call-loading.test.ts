/**
 * What a server evaluates before its first answers, read from the static import graph
 * (dynamic `import()` is where loading is deferred, so it is not followed):
 * - `initialize` and tools/list need neither arktype nor any schema;
 * - a call loads its tool's module, whose static graph holds only the schemas of its own
 *   tools, not those of every other group (loading every tool's schemas on the first
 *   drill-down cost the better part of a second);
 * - the server process switches arktype to interpreted validation before anything loads it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO, tempDir } from "../helpers.ts";
import { TOOL_MODULES } from "../../src/mcp/tool-modules.ts";

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm;

/** Every file and package reached from `entry` through static, non-type imports. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.endsWith(".ts")) return;
    for (const [, spec] of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      if (spec!.startsWith(".")) visit(resolve(dirname(file), spec!));
      else seen.add(`package:${spec}`);
    }
  };
  visit(resolve(REPO, entry));
  return new Set([...seen].map((f) => (f.startsWith("package:") ? f : relative(REPO, f))));
}

const OTHER_GROUP_SCHEMAS = [
  ...[
    "capture-results.ts",
    "study-results.ts",
    "study.ts",
    "otel.ts",
    "investigations.ts",
    "failures.ts",
    "records.ts",
  ].map((f) => join("src", "mcp", "schemas", f)),
  // The use cases' requests are shared by the CLI and MCP; a tool module loads only its own.
  ...[
    "capture-requests.ts",
    "measurement-requests.ts",
    "run-set-requests.ts",
    "comparison-requests.ts",
    "experiment-requests.ts",
    "investigation-requests.ts",
    "otel-requests.ts",
    "recipe-requests.ts",
    "record-requests.ts",
    "summary-request.ts",
  ].map((f) => join("src", "application", "requests", f)),
];

describe("what the MCP server loads before its first answers", () => {
  test("the server module answers initialize and tools/list without arktype or any schema", () => {
    const closure = staticClosure("src/mcp/server.ts");
    expect(
      [...closure].filter(
        (f) =>
          f.startsWith("package:arktype") ||
          f.startsWith("src/mcp/schemas/") ||
          f.startsWith("src/mcp/tools/"),
      ),
    ).toEqual([]);
    expect(closure.has("src/mcp/tool-list.json")).toBe(true);
  });

  test("a call loads its tool's module, never the whole registry", () => {
    const DYNAMIC_IMPORT = /import\(\s*["']([^"']+)["']\s*\)/g;
    const deferred = [...staticClosure("src/mcp/server.ts")]
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) =>
        [...readFileSync(join(REPO, f), "utf8").matchAll(DYNAMIC_IMPORT)].map(([, spec]) =>
          relative(REPO, resolve(REPO, dirname(f), spec!)),
        ),
      );
    expect(deferred).toContain("src/mcp/tools/analysis-tools.ts");
    expect(
      deferred.filter((f) => f === "src/mcp/tool-registry.ts" || f === "src/mcp/tools/index.ts"),
    ).toEqual([]);
  });

  test("a drill-down's tool module brings only its own schemas, not every group's", () => {
    const closure = staticClosure(join("src", "mcp", "tools", "analysis-tools.ts"));
    expect(closure.has("src/mcp/schemas/analysis.ts")).toBe(true);
    expect([...closure].filter((f) => OTHER_GROUP_SCHEMAS.includes(f))).toEqual([]);
    expect(
      [...closure].filter(
        (f) => f.startsWith("src/mcp/tools/") && !f.endsWith("analysis-tools.ts"),
      ),
    ).toEqual([]);
  });

  test("every tool module is its own entry in the loader table", () => {
    for (const [name, load] of Object.entries(TOOL_MODULES))
      expect(load.toString()).toContain(`./tools/${name}.ts`);
  });

  test("the server sets interpreted validation before arktype loads, and not before " +
    "initialize", async () => {
    // A fresh process: the server over an in-memory transport, one initialize and one call.
    const script = `
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
      const { createServer } = await import("./src/mcp/server.ts");
      const { WorkspaceSession } = await import("./src/mcp/workspace-session.ts");
      const [a, b] = InMemoryTransport.createLinkedPair();
      const session = new WorkspaceSession(process.argv[1]);
      await createServer(session).connect(a);
      const client = new Client({ name: "t", version: "0" });
      await client.connect(b);
      const atInitialize = globalThis.$ark?.resolvedConfig?.jitless ?? "arktype not loaded";
      await client.callTool({ name: "workspace_status", arguments: {} });
      console.log(JSON.stringify({ atInitialize, afterCall: \
globalThis.$ark?.resolvedConfig?.jitless ?? null }));
      await client.close(); session.close();
    `;
    const dir = tempDir("flameox-validator-mode-");
    try {
      const child = Bun.spawnSync([process.execPath, "-e", script, dir.path], {
        cwd: REPO,
        stderr: "pipe",
      });
      expect(child.stderr.toString()).toBe("");
      expect(JSON.parse(child.stdout.toString())).toEqual({
        atInitialize: "arktype not loaded",
        afterCall: true,
      });
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});

describe("the background warm-up", () => {
  test("loads the call path first and the rest last, one step at a time, each only once no call " +
    "is running", async () => {
    const { warmUpServer } = await import("../../src/mcp/warm-up.ts");
    const { publishedTool, publishedTools } = await import("../../src/mcp/published-tools.ts");
    const events: string[] = [];
    let running = 0;
    const step = (name: string) => async () => {
      running++;
      events.push(name);
      await Bun.sleep(1);
      running--;
    };
    await warmUpServer({
      groups: ["core"],
      first: step("first"),
      last: [step("last")],
      idle: async () => {
        expect(running).toBe(0);
        events.push("idle");
      },
    });
    const modules = new Set(publishedTools(["core"]).map((t) => publishedTool(t.name)!.module));
    // first, each core tool module, the analyses, last: each after waiting for quiet.
    expect(events.filter((e) => e === "idle")).toHaveLength(1 + modules.size + 1 + 1);
    expect(events[0]).toBe("idle");
    expect(events[1]).toBe("first");
    expect(events.at(-1)).toBe("last");
  }, 60_000);
});
