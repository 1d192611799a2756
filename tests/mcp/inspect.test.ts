/**
 * `flameox mcp inspect` starts the server as a stdio client would and reports what an agent sees.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, REPO, tempDir } from "../helpers.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";

describe("flameox mcp inspect", () => {
  test("--json lists the server identity, tools with schemas and annotations, templates and " +
    "instructions", async () => {
    const dir = tempDir("flameox-inspect-");
    try {
      const result = await cli(
        ["mcp", "inspect", "--project-root", dir.path, "--json", "--tools", "all"],
        { cwd: dir.path },
      );
      expect(result.code).toBe(0);
      const report = result.json;
      expect(report.server).toMatchObject({ name: "flameox" });
      expect(report.tools).toHaveLength(TOOLS.length);
      for (const tool of report.tools) {
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.outputSchema.type).toBe("object");
        expect(typeof tool.annotations.readOnlyHint).toBe("boolean");
      }
      expect(
        report.resource_templates.map((t: { uriTemplate: string }) => t.uriTemplate),
      ).toContain("flameox://artifacts/{artifact_id}");
      expect(report.instructions).toContain("initialize_workspace");
    } finally {
      dir.cleanup();
    }
  }, 120_000);

  test("text output shows each tool's hints and arguments; the uninitialized root is not " +
    "created", async () => {
    const dir = tempDir("flameox-inspect-");
    try {
      const result = await cli(["mcp", "inspect", "--project-root", dir.path], { cwd: dir.path });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/import_artifact\s+----\s+\(path, /);
      expect(result.stdout).toMatch(/analyze_hotspots\s+R-I-/);
      // The default profile: the core group only.
      expect(result.stdout).not.toMatch(/^\s+plan_capture\s/m);
      expect(await Bun.file(`${dir.path}/.diagnostics/workspace.json`).exists()).toBe(false);
    } finally {
      dir.cleanup();
    }
  }, 120_000);

  test("serve --init creates the workspace at start", async () => {
    const dir = tempDir("flameox-serve-init-");
    try {
      const child = Bun.spawn(
        [
          process.execPath,
          join(REPO, "src", "cli", "main.ts"),
          "mcp",
          "serve",
          "--project-root",
          dir.path,
          "--init",
        ],
        { stdin: "pipe", stdout: "pipe", stderr: "pipe" },
      );
      for (
        let i = 0;
        i < 100 && !(await Bun.file(`${dir.path}/.diagnostics/workspace.json`).exists());
        i++
      )
        await Bun.sleep(50);
      child.stdin.end();
      expect(await child.exited).toBe(0);
      expect(await new Response(child.stdout).text()).toBe("");
      expect(await Bun.file(`${dir.path}/.diagnostics/workspace.json`).exists()).toBe(true);
    } finally {
      dir.cleanup();
    }
  }, 120_000);
});
