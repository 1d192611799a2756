/**
 * The tools a server publishes: the core group by default, within a context budget;
 * other groups on `--tools`; a tool outside the enabled groups refused with a typed
 * error that names the flag enabling it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, tempDir } from "../helpers.ts";
import { instructionsFor } from "../../src/mcp/instructions.ts";
import {
  DEFAULT_TOOL_GROUPS,
  parseToolGroups,
  TOOL_GROUP_NAMES,
  TOOL_GROUPS,
  toolsArgument,
} from "../../src/mcp/tool-groups.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";
import { call, connect, type Connected, type Json, rawSession } from "./mcp-helpers.ts";

/**
 * The core profile's tools/list must fit 8,000 tokens of an agent's context. Counted as
 * bytes of the JSON-RPC result at 4 bytes per token; JSON Schema text tokenizes at about
 * 4.2 bytes per token with OpenAI's o200k encoding, so this errs on the safe side.
 */
const CORE_TOKEN_BUDGET = 8_000;
const BYTES_PER_TOKEN = 4;
const CORE_MAX_TOOLS = 12;

describe("tool groups", () => {
  test("every registry tool is in exactly one group, and every grouped name is a tool", () => {
    const grouped: string[] = TOOL_GROUP_NAMES.flatMap((g) => [...TOOL_GROUPS[g].tools]);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });

  test(
    "--tools parses group names and all; an unknown name is INVALID_ARGUMENTS listing the " +
      "groups",
    () => {
      expect(parseToolGroups(undefined)).toEqual([...DEFAULT_TOOL_GROUPS]);
      expect(parseToolGroups("")).toEqual(["core"]);
      expect(parseToolGroups("capture, core")).toEqual(["core", "capture"]);
      expect(parseToolGroups("all")).toEqual(TOOL_GROUP_NAMES);
      expect(toolsArgument("core,ALL")).toBe("all");
      expect(toolsArgument("study,core")).toBe("core,study");
      expect(() => parseToolGroups("core,captrue")).toThrow(
        /Unknown tool group "captrue".*capture/,
      );
    },
  );

  test(
    "the instructions name no tool the server does not publish, and say how to enable the " +
      "others",
    () => {
      const core = instructionsFor(["core"]);
      expect(core).not.toContain("plan_capture");
      expect(core).toContain("--tools core,records");
      for (const group of TOOL_GROUP_NAMES.filter((g) => g !== "core"))
        expect(core).toContain(`- ${group}: `);
      const all = instructionsFor(TOOL_GROUP_NAMES);
      expect(all).toContain("plan_capture");
      expect(all).not.toContain("not published by this server");
    },
  );
});

describe("the default (core) server", () => {
  let dir: { path: string; cleanup: () => void };
  let mcp: Connected;
  beforeAll(async () => {
    dir = tempDir("flameox-mcp-core-");
    mcp = await connect(dir.path, { tools: null });
  });
  afterAll(async () => {
    await mcp.close();
    dir.cleanup();
  });

  test(`tools/list of the core profile is at most ${CORE_MAX_TOOLS} tools ` +
    `and ${CORE_TOKEN_BUDGET} tokens (${CORE_TOKEN_BUDGET * BYTES_PER_TOKEN} bytes)`, async () => {
    const raw = await rawSession(dir.path, null);
    try {
      await raw.send({ id: 1, method: "tools/list", params: {} });
      const answer = (await raw.readUntil((m) => m.id === 1)).at(-1)!;
      const bytes = Buffer.byteLength(JSON.stringify(answer.result));
      const names = (answer.result.tools as Json[]).map((t) => t.name);
      expect(names).toEqual(
        TOOLS.map((t) => t.name).filter((n) =>
          (TOOL_GROUPS.core.tools as readonly string[]).includes(n),
        ),
      );
      expect(names.length).toBeLessThanOrEqual(CORE_MAX_TOOLS);
      expect(bytes).toBeLessThanOrEqual(CORE_TOKEN_BUDGET * BYTES_PER_TOKEN);
    } finally {
      await raw.end();
    }
  }, 60_000);

  test(
    "a tool outside the enabled groups is refused with TOOL_NOT_ENABLED naming the flag that " +
      "enables it",
    async () => {
      const refused = await call(mcp.client, "plan_capture", { adapter: "command", workload: "w" });
      expect(refused.isError).toBe(true);
      expect(refused.error).toMatchObject({
        code: "TOOL_NOT_ENABLED",
        retryable: false,
        details: { tool: "plan_capture", group: "capture", flag: "--tools core,capture" },
      });
      expect(refused.error.message).toContain("--tools core,capture");
      expect(refused.error.remediation[0]).toContain("--tools core,capture");
      // A name no group has is still a protocol error, not a refusal.
      await expect(mcp.client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(
        /Unknown tool/,
      );
    },
  );

  test("a core tool answers", async () => {
    const created = await call(mcp.client, "initialize_workspace");
    expect(created.isError).toBe(false);
  });
});

describe("--tools", () => {
  test("core,records publishes and serves the records tools too", async () => {
    const dir = tempDir("flameox-mcp-records-");
    const mcp = await connect(dir.path, { tools: "core,records" });
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("list_runs");
      expect(names).toContain("get_frame_callers");
      expect(names).not.toContain("plan_capture");
      // It reaches the service: this root has no workspace yet.
      const runs = await call(mcp.client, "list_runs", {});
      expect(runs.error?.code).toBe("WORKSPACE_NOT_FOUND");
    } finally {
      await mcp.close();
      dir.cleanup();
    }
  }, 60_000);

  test("an unknown group stops `mcp serve` before it starts, with the valid names", async () => {
    const dir = tempDir("flameox-mcp-bad-");
    try {
      const result = await cli(
        ["mcp", "serve", "--project-root", dir.path, "--tools", "core,captrue"],
        { cwd: dir.path },
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("captrue");
      expect(result.stderr).toContain("capture");
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
