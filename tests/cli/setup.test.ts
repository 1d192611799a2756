/**
 * `flameox setup` against temporary home and project directories for all six clients:
 * preview, refusal without consent, apply with backup, verification by a real MCP
 * initialize, and rollback to byte-identical files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { CLIENT_IDS, CLIENTS, clientById } from "../../src/application/setup/clients.ts";
import { readServerEntry, withServerEntry } from "../../src/application/setup/config-edit.ts";
import { applySetup, planSetup, rollbackSetup } from "../../src/application/setup/setup-service.ts";
import { cli, REPO, tempDir } from "../helpers.ts";
import { openTerminal, TMUX } from "../terminal.ts";

let dir: ReturnType<typeof tempDir>;
let home: string;
let project: string;

/**
 * Pre-existing files with other servers, comments (TOML) and odd indentation: setup must keep them.
 */
const EXISTING: Record<string, string> = {
  ".mcp.json": '{\n    "mcpServers": {\n        "other": { "command": "other-server" }\n    }\n}\n',
  ".codex/config.toml":
    '# my settings\nmodel = "o3"   # keep this comment\n\n[mcp_servers.other]\ncommand = ' +
    '"other"\nargs = ["--x"]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
  ".gemini/settings.json": '{"theme": "dark"}',
};

function snapshot(paths: string[]): Map<string, Buffer | null> {
  return new Map(paths.map((p) => [p, existsSync(p) ? readFileSync(p) : null]));
}

beforeAll(() => {
  dir = tempDir("flameox-setup-");
  home = join(dir.path, "home");
  project = join(dir.path, "project");
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(EXISTING)) {
    mkdirSync(dirname(join(project, rel)), { recursive: true });
    writeFileSync(join(project, rel), text);
  }
});
afterAll(() => dir.cleanup());

describe("flameox setup", () => {
  test("detects clients by their configuration directories and files", () => {
    const plan = planSetup({ home, project, scope: "project" });
    expect(plan.detected.sort()).toEqual(["claude-code", "codex", "gemini"]);
  });

  test("each client gets its documented shape, read back the way that client reads it", () => {
    const launch = {
      command: "/abs/bun",
      args: ["/abs/main.ts", "mcp", "serve", "--project-root", "/p"],
    };
    const shapes: Record<string, unknown> = {};
    for (const client of CLIENTS) {
      const text = withServerEntry(client, "x", null, client.entry(launch));
      shapes[client.id] = client.format === "toml" ? parseToml(text) : JSON.parse(text);
      expect(client.launchOf(readServerEntry(client, "x", text))).toEqual(launch);
    }
    expect(shapes["claude-code"]).toEqual({
      mcpServers: { flameox: { type: "stdio", command: "/abs/bun", args: launch.args, env: {} } },
    });
    expect(shapes.cursor).toEqual({
      mcpServers: { flameox: { command: "/abs/bun", args: launch.args } },
    });
    expect(shapes.codex).toEqual({
      mcp_servers: { flameox: { command: "/abs/bun", args: launch.args } },
    });
    expect(shapes.vscode).toEqual({
      servers: { flameox: { type: "stdio", command: "/abs/bun", args: launch.args } },
    });
    expect(shapes.gemini).toEqual({
      mcpServers: { flameox: { command: "/abs/bun", args: launch.args } },
    });
    expect(shapes.opencode).toEqual({
      $schema: "https://opencode.ai/config.json",
      mcp: { flameox: { type: "local", command: ["/abs/bun", ...launch.args], enabled: true } },
    });
  });

  test(
    "Codex TOML keeps its comments and other tables, and a second setup replaces the table in " +
      "place",
    () => {
      const codex = clientById("codex")!;
      const first = withServerEntry(codex, "c", EXISTING[".codex/config.toml"]!, {
        command: "a",
        args: ["1"],
      });
      expect(first.startsWith(EXISTING[".codex/config.toml"]!)).toBe(true);
      const second = withServerEntry(codex, "c", first, { command: "b", args: ["2"] });
      expect(second).toContain("# keep this comment");
      expect(second.match(/\[mcp_servers\.flameox\]/g)).toHaveLength(1);
      expect(parseToml(second)).toMatchObject({
        model: "o3",
        profiles: { fast: { model: "o4-mini" } },
        mcp_servers: { other: { command: "other" }, flameox: { command: "b", args: ["2"] } },
      });
    },
  );

  test("a JSON file with comments is refused, not rewritten", () => {
    const vscode = clientById("vscode")!;
    expect(() =>
      withServerEntry(vscode, "mcp.json", '{ // mine\n "servers": {} }', { command: "a" }),
    ).toThrow(/not plain JSON/);
  });

  test("without a terminal or --yes nothing is written; --dry-run shows the diff", async () => {
    const paths = CLIENTS.map((c) => c.path("project", home, project));
    const before = snapshot(paths);
    const refused = await cli(
      ["setup", "--project", project, "--home", home, "--client", CLIENT_IDS.join(",")],
      { cwd: project },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("CONFIRMATION_REQUIRED");
    expect(refused.stderr).toContain('+    "flameox": {');
    expect(refused.stderr).toContain("+[mcp_servers.flameox]");
    const dry = await cli(
      [
        "setup",
        "--project",
        project,
        "--home",
        home,
        "--client",
        CLIENT_IDS.join(","),
        "--dry-run",
        "--json",
      ],
      { cwd: project },
    );
    expect(dry.code).toBe(0);
    expect(dry.json.plan.changes.map((c: { action: string }) => c.action).sort()).toEqual([
      "create",
      "create",
      "create",
      "update",
      "update",
      "update",
    ]);
    expect(snapshot(paths)).toEqual(before);
  });

  test("apply writes all six clients, a real server answers initialize, rollback restores " +
    "identical bytes", async () => {
    const paths = CLIENTS.map((c) => c.path("project", home, project));
    const before = snapshot(paths);
    const applied = await cli(
      [
        "setup",
        "--project",
        project,
        "--home",
        home,
        "--client",
        CLIENT_IDS.join(","),
        "--yes",
        "--json",
      ],
      { cwd: project },
    );
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.json.applied.written.sort()).toEqual([...paths].sort());
    expect(applied.json.verification).toHaveLength(6);
    for (const v of applied.json.verification) {
      expect(v).toMatchObject({ ok: true, server: expect.stringMatching(/^flameox /) });
      // The written command is absolute and starts this checkout's flameox.
      expect(v.command.startsWith("/")).toBe(true);
      expect(v.args).toContain(project);
    }
    expect(JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")).mcpServers.other).toEqual({
      command: "other-server",
    });
    expect(JSON.parse(readFileSync(join(project, ".gemini/settings.json"), "utf8")).theme).toBe(
      "dark",
    );

    const again = await cli(
      [
        "setup",
        "--project",
        project,
        "--home",
        home,
        "--client",
        CLIENT_IDS.join(","),
        "--dry-run",
        "--json",
      ],
      { cwd: project },
    );
    expect(again.json.plan.changes.every((c: { action: string }) => c.action === "unchanged")).toBe(
      true,
    );

    const rolled = await cli(["setup", "--rollback", "--home", home, "--yes", "--json"], {
      cwd: project,
    });
    expect(rolled.code).toBe(0);
    expect(rolled.json.restored).toHaveLength(3);
    expect(rolled.json.removed).toHaveLength(3);
    expect(snapshot(paths)).toEqual(before);
    for (const created of [".cursor", ".vscode"])
      expect(existsSync(join(project, created))).toBe(false);
  }, 120_000);

  test(
    "user scope writes under --home; a file edited after setup is not overwritten by " + "rollback",
    () => {
      const plan = planSetup({
        home,
        project,
        scope: "user",
        clients: ["cursor", "opencode"],
        launch: (root) => ({
          command: "/abs/flameox",
          args: ["mcp", "serve", "--project-root", root],
        }),
      });
      expect(plan.changes.map((c) => c.path)).toEqual([
        join(home, ".cursor", "mcp.json"),
        join(home, ".config", "opencode", "opencode.json"),
      ]);
      applySetup(plan);
      writeFileSync(join(home, ".cursor", "mcp.json"), "{}\n");
      expect(() => rollbackSetup(home)).toThrow(/changed since flameox setup wrote it/);
      const forced = rollbackSetup(home, { force: true });
      expect(forced.removed.sort()).toEqual(plan.changes.map((c) => c.path).sort());
      expect(existsSync(join(home, ".cursor"))).toBe(false);
    },
  );

  test(
    "--tools goes into the server arguments each client stores; an unknown group " +
      "writes nothing",
    async () => {
      const plan = planSetup({
        home,
        project,
        scope: "project",
        clients: ["codex", "opencode"],
        tools: "core,capture",
      });
      for (const change of plan.changes) {
        const launch = clientById(change.client)!.launchOf(
          readServerEntry(clientById(change.client)!, change.path, change.after),
        );
        expect(launch?.args.slice(-2), change.client).toEqual(["--tools", "core,capture"]);
      }
      const bad = await cli(
        [
          "setup",
          "--client",
          "cursor",
          "--tools",
          "core,captrue",
          "--home",
          home,
          "--project",
          project,
          "--dry-run",
        ],
        { cwd: project },
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("captrue");
    },
  );

  test("rollback with nothing to roll back is a typed error", async () => {
    const result = await cli(["setup", "--rollback", "--home", join(dir.path, "empty"), "--yes"], {
      cwd: project,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("RECORD_NOT_FOUND");
  });
});

describe.skipIf(!TMUX)("flameox setup at a terminal", () => {
  async function answer(key: string, home: string): Promise<string> {
    const command =
      `cd ${project} && env -u NO_COLOR ${process.execPath} ${join(REPO, "src/cli/main.ts")} ` +
      `setup --client cursor --home ${home} --no-verify; echo SETUP-EXIT:$?; sleep 60`;
    const terminal = openTerminal(command, 150, 40);
    try {
      await terminal.waitFor("[y/N]", 20_000);
      terminal.keys(key, "Enter");
      return await terminal.waitFor("SETUP-EXIT:", 20_000);
    } finally {
      terminal.close();
    }
  }

  test("the diff is shown, then a person's n writes nothing and y writes the file", async () => {
    const home = join(dir.path, "tty-home");
    const cursor = join(project, ".cursor", "mcp.json");
    const declined = await answer("n", home);
    expect(declined).toContain("+++ " + cursor);
    expect(declined).toContain("not confirmed");
    expect(declined).toContain("SETUP-EXIT:2");
    expect(existsSync(cursor)).toBe(false);
    const accepted = await answer("y", home);
    expect(accepted).toContain("wrote 1 file(s)");
    expect(accepted).toContain("SETUP-EXIT:0");
    expect(
      JSON.parse(readFileSync(cursor, "utf8")).mcpServers.flameox.command.startsWith("/"),
    ).toBe(true);
    rollbackSetup(home);
    expect(existsSync(join(project, ".cursor"))).toBe(false);
  }, 60_000);
});
