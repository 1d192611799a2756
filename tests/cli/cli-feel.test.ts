/**
 * The CLI as a person meets it: unknown flags and commands refused with the nearest name,
 * help with examples for every command, the import format list from the adapter
 * registry, display names in listings, readable `show` output, and `runs logs`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandDef } from "citty";
import { ADAPTERS } from "../../src/adapters/registry.ts";
import type { FlameoxError } from "../../src/domain/errors.ts";
import { checkArguments, nearest } from "../../src/cli/arg-check.ts";
import { examplesFor } from "../../src/cli/help.ts";
import { main } from "../../src/cli/main.ts";
import { SAMPLES, cli, tempWorkspace } from "../helpers.ts";

let ws: { root: string; cleanup: () => void };
let profile: { run_id: string; artifact_id: string };
const run = (args: string[]) => cli(args, { cwd: ws.root });

beforeAll(async () => {
  ws = await tempWorkspace();
  profile = (await run(["import", join(SAMPLES, "sample.cpuprofile"), "--json"])).json;
});
afterAll(() => ws.cleanup());

describe("arguments", () => {
  const refusal = async (args: string[]) => {
    try {
      await checkArguments(main, args);
    } catch (error) {
      return error as FlameoxError;
    }
    return null;
  };

  test("an unknown flag is refused with the nearest known one, exit 2", async () => {
    const result = await run(["runs", "list", "--limt", "3"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "error[INVALID_ARGUMENTS]: Unknown option --limt (did you mean --limit?)",
    );
    const error = await refusal(["analyze", "hotspots", profile.artifact_id, "--limt=3", "--json"]);
    expect(error?.toPayload()).toMatchObject({
      code: "INVALID_ARGUMENTS",
      details: { field: "--limt", suggestion: "--limit" },
    });
  });

  test("an unknown command or subcommand is refused with a suggestion", async () => {
    expect((await refusal(["anlyze", "hotspots", "x"]))?.message).toBe(
      "Unknown command anlyze (did you mean analyze?)",
    );
    expect((await refusal(["runs", "lst"]))?.message).toBe(
      "Unknown command lst (did you mean list?)",
    );
    expect((await refusal(["runs"]))?.message).toContain("needs a command: list, show, logs");
    // --limt is --cursor's value
    expect(await refusal(["runs", "list", "--json", "--cursor", "--limt"])).toBeNull();
  });

  test(
    "known flags in every spelling pass: --name value, --name=value, kebab-case, --no-flag, " +
      "after --",
    async () => {
      for (const args of [
        ["runs", "list", "--limit", "1"],
        ["runs", "list", "--limit=1"],
        ["import", "x.json", "--producer-version", "20", "--media-type", "application/json"],
        ["setup", "--no-verify", "--dry-run", "--client", "cursor"],
        ["capture", "run", "command", "--workload", "w", "--", "--anything"],
        ["--help"],
      ]) {
        expect(await refusal(args)).toBeNull();
      }
      expect((await run(["runs", "list", "--limit=1", "--json"])).json.items).toHaveLength(1);
    },
  );

  test("nearest ignores names that are too far away", () => {
    expect(nearest("limt", ["limit", "cursor"])).toBe("limit");
    expect(nearest("zzzzzz", ["limit", "cursor"])).toBeNull();
  });
});

describe("help", () => {
  test("every command has examples", async () => {
    const missing: string[] = [];
    const resolve = async (v: unknown) => (typeof v === "function" ? await v() : await v);
    const walk = async (cmd: CommandDef<any>, path: string[]) => {
      const subs = (await resolve(cmd.subCommands)) as Record<string, unknown> | undefined;
      if (path.length > 0 && examplesFor(path).length === 0) missing.push(path.join(" "));
      for (const [name, sub] of Object.entries(subs ?? {}))
        await walk((await resolve(sub)) as CommandDef<any>, [...path, name]);
    };
    await walk(main, []);
    expect(missing).toEqual([]);
  });

  test("import --help lists every adapter in the registry, and help shows examples", async () => {
    const help = await run(["import", "--help"]);
    expect(help.code).toBe(0);
    for (const adapter of ADAPTERS) expect(help.stdout).toContain(`  ${adapter.name} `);
    expect(help.stdout).toContain("EXAMPLES");
    expect((await run(["stacks", "callers", "--help"])).stdout).toContain(
      "flameox stacks callers sha256:",
    );
  });
});

describe("records for people", () => {
  test(
    "runs list and artifacts list show display names; --json stays the result " + "model",
    async () => {
      const runs = await run(["runs", "list"]);
      expect(runs.stdout.split("\n")[0]).toContain("NAMES");
      expect(runs.stdout).toContain("sample.cpuprofile");
      const artifacts = await run(["artifacts", "list"]);
      expect(artifacts.stdout).toContain("sample.cpuprofile");
      const json = await run(["runs", "list", "--json"]);
      expect(Object.keys(json.json.items[0])).not.toContain("display_names");
    },
  );

  test("show commands print text unless --json", async () => {
    const text = await run(["runs", "show", profile.run_id]);
    expect(text.code).toBe(0);
    expect(text.stdout.startsWith(`run ${profile.run_id}`)).toBe(true);
    expect(text.stdout).toContain("sample.cpuprofile");
    expect(() => JSON.parse(text.stdout)).toThrow();
    expect((await run(["runs", "show", profile.run_id, "--json"])).json.run_id).toBe(
      profile.run_id,
    );
    const artifact = await run(["artifacts", "show", profile.artifact_id]);
    expect(artifact.stdout).toContain(`artifact ${profile.artifact_id}`);
    expect(artifact.stdout).toContain("analyze_hotspots");
  });

  test("runs logs prints what a failed capture wrote to stdout and stderr", async () => {
    writeFileSync(
      join(ws.root, "flameox.toml"),
      '[workloads.noisy]\nargv = ["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"]\n',
    );
    expect((await run(["workload", "approve", "noisy", "--yes"])).code).toBe(0);
    const captured = await run(["capture", "run", "command", "--workload", "noisy", "--json"]);
    const runId = captured.json.run_id ?? captured.json.error?.run_id;
    expect(runId).toMatch(/^run_/);
    const logs = await run(["runs", "logs", runId]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain("stdout");
    expect(logs.stdout).toContain("to-stdout");
    expect(logs.stdout).toContain("to-stderr");
    const stderrOnly = await run(["runs", "logs", runId, "--stream", "stderr", "--json"]);
    expect(
      stderrOnly.json.streams.map((s: { role: string; text: string }) => [s.role, s.text]),
    ).toEqual([["stderr", "to-stderr\n"]]);
    expect((await run(["runs", "logs", profile.run_id])).stdout).toContain(
      "stored no stdout or stderr",
    );
  });
});
