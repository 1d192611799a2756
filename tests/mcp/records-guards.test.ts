/**
 * Records and protocol answers that must not mislead: list cursors tied to the control
 * plane's state (STALE_CURSOR after an import, never repeated items); a fresh workspace in
 * sync with its catalog; an unknown adapter refused before anything is recorded; an
 * unknown format naming the formats that exist; exit codes as the README's table says; no
 * host path in WORKSPACE_NOT_FOUND over MCP; hard links refused by the import fence; and
 * JSON-RPC's own codes for a line that is not JSON (-32700) or params that do not fit (-32602).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fenceImportPath } from "../../src/application/import-fence.ts";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { CORPUS, REPO, SAMPLES, cli, tempDir, tempWorkspace } from "../helpers.ts";

let ws: { root: string; cleanup: () => void };
let service: WorkspaceService;

beforeAll(async () => {
  ws = await tempWorkspace();
  service = await WorkspaceService.open({ workspace: ws.root });
}, 60_000);
afterAll(() => {
  service?.close();
  ws?.cleanup();
});

describe("workspace records", () => {
  test("a fresh workspace is in sync with its catalog and warns about nothing", () => {
    const status = service.status();
    expect(status.catalog.in_sync).toBe(true);
    expect(status.warnings).toEqual([]);
  });

  test(
    "list cursors are tied to the control plane: after an import they are " + "STALE_CURSOR",
    async () => {
      await service.importArtifact({ path: join(SAMPLES, "sample.cpuprofile") });
      await service.importArtifact({ path: join(SAMPLES, "sample-trace.json") });
      const runs = service.listRuns({ limit: 1 });
      const artifacts = service.listArtifacts({ limit: 1 });
      expect(runs.next_cursor).not.toBeNull();
      expect(artifacts.next_cursor).not.toBeNull();
      // Unchanged state: the cursor pages on.
      expect(service.listRuns({ limit: 1, cursor: runs.next_cursor }).items[0]!.run_id).not.toBe(
        runs.items[0]!.run_id,
      );
      await service.importArtifact({
        path: join(CORPUS, "hyperfine", "local-hyperfine-1.15.0-named-prepare.json"),
      });
      expect(() => service.listRuns({ limit: 1, cursor: runs.next_cursor })).toThrow(
        expect.objectContaining({
          code: "STALE_CURSOR",
          message: expect.stringContaining("control-plane revision"),
        }),
      );
      expect(() => service.listArtifacts({ limit: 1, cursor: artifacts.next_cursor })).toThrow(
        expect.objectContaining({ code: "STALE_CURSOR" }),
      );
    },
  );

  test(
    "an unknown adapter is INVALID_ARGUMENTS naming the valid ones, and records " + "nothing",
    async () => {
      const before = service.status().counts.runs;
      const error = await service
        .importArtifact({ path: join(SAMPLES, "sample.cpuprofile"), adapter: "chrome" })
        .catch((e) => e);
      expect(error).toMatchObject({ code: "INVALID_ARGUMENTS", details: { field: "adapter" } });
      expect(error.details.valid).toContain("chrome-trace");
      expect(error.message).toContain("v8-cpuprofile");
      expect(service.status().counts.runs).toBe(before);
    },
  );

  test("an unrecognised format names the importable formats and those known but not " +
    "imported", async () => {
    const path = join(ws.root, "notes.txt");
    writeFileSync(path, "just some text\n");
    const error = await service.importArtifact({ path }).catch((e) => e);
    expect(error.code).toBe("ARTIFACT_FORMAT_UNKNOWN");
    expect(error.message).toContain("Importable formats (adapters): v8-cpuprofile, chrome-trace");
    // nsys stats CSV reports were the last format known but not imported: now both their adapters
    // are importable.
    expect(error.message).toMatch(
      /Importable formats \(adapters\): [^.]*nsys-stats-trace-csv, nsys-stats-summary-csv/,
    );
    expect(error.message).not.toContain("Known but not imported yet");
    // Formats that gained an adapter are listed as importable, not as pending.
    expect(error.message).toMatch(
      /Importable formats \(adapters\): [^.]*callgrind, gecko, massif, dhat, dtrace-stacks/,
    );
    expect(error.message).toMatch(/Importable formats \(adapters\): [^.]*nvbench[^.]*pytorch-et/);
    expect(error.message).not.toMatch(
      /Known but not imported yet: .*(gecko|callgrind|massif|dhat|pytorch-et)/,
    );
  }, 60_000);
});

describe("exit codes follow the README table", () => {
  test("unknown format and parse failure exit 4 (artifact cannot be read); unknown --adapter " +
    "exits 2", async () => {
    const dir = tempDir();
    try {
      const text = join(dir.path, "notes.txt");
      writeFileSync(text, "just some text\n");
      const broken = join(dir.path, "broken.json");
      writeFileSync(broken, '{"traceEvents": [1, 2');
      const readme = await Bun.file(join(REPO, "README.md")).text();
      expect(readme).toMatch(/2 invalid\s+arguments \(an unknown `--adapter` included\)/);
      expect(readme).toMatch(
        /4 external process\s+failure or an artifact that cannot be read \(unknown format, parse failure\)/,
      );
      const unknown = await cli(["import", text, "--json"], { cwd: ws.root });
      expect([unknown.code, unknown.json.error.code]).toEqual([4, "ARTIFACT_FORMAT_UNKNOWN"]);
      const parse = await cli(["import", broken, "--adapter", "chrome-trace", "--json"], {
        cwd: ws.root,
      });
      expect([parse.code, parse.json.error.code]).toEqual([4, "ARTIFACT_PARSE_FAILED"]);
      const adapter = await cli(["import", text, "--adapter", "nope", "--json"], { cwd: ws.root });
      expect([adapter.code, adapter.json.error.code]).toEqual([2, "INVALID_ARGUMENTS"]);
    } finally {
      dir.cleanup();
    }
  }, 120_000);
});

describe("import fence", () => {
  test("a file with another hard link is refused", async () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.path, "in"));
      writeFileSync(join(dir.path, "secret.json"), "{}");
      linkSync(join(dir.path, "secret.json"), join(dir.path, "in", "linked.json"));
      await expect(fenceImportPath(join(dir.path, "in"), "linked.json")).rejects.toMatchObject({
        code: "ARTIFACT_REFUSED",
        message: expect.stringContaining("2 hard links"),
      });
      writeFileSync(join(dir.path, "in", "own.json"), "{}");
      const fenced = await fenceImportPath(join(dir.path, "in"), "own.json");
      await fenced.release();
    } finally {
      dir.cleanup();
    }
  });
});

/** Sends raw lines to `flameox mcp serve` and collects the JSON-RPC answers by id. */
async function rawSession(
  root: string,
  lines: string[],
  expected: number,
): Promise<Record<string, unknown>[]> {
  const child = Bun.spawn(
    [
      process.execPath,
      join(REPO, "src", "cli", "main.ts"),
      "mcp",
      "serve",
      "--project-root",
      root,
      "--tools",
      "all",
    ],
    { stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  for (const line of lines) child.stdin.write(`${line}\n`);
  await child.stdin.flush();
  const answers: Record<string, unknown>[] = [];
  const reader = child.stdout.getReader();
  let buffer = "";
  const deadline = Date.now() + 100_000;
  while (answers.length < expected && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += new TextDecoder().decode(value);
    let at: number;
    while ((at = buffer.indexOf("\n")) !== -1) {
      answers.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
  }
  child.stdin.end();
  await child.exited;
  return answers;
}

describe("MCP protocol answers", () => {
  test("-32700 for a line that is not JSON, -32602 for malformed arguments, no host path in " +
    "WORKSPACE_NOT_FOUND", async () => {
    const dir = tempDir("flameox-noworkspace-");
    try {
      const init = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      };
      const answers = await rawSession(
        dir.path,
        [
          JSON.stringify(init),
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          "this is not json",
          JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "list_runs", arguments: "limit=5" },
          }),
          JSON.stringify({
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "list_runs", arguments: {} },
          }),
        ],
        4,
      );
      const byId = (id: unknown) =>
        answers.find((a) => a.id === id) as {
          error?: { code: number; message: string };
          result?: { structuredContent: { error: { code: string; message: string } } };
        };
      expect(byId(null)?.error?.code).toBe(-32700);
      expect(byId(2)?.error?.code).toBe(-32602);
      const notFound = byId(3)!.result!.structuredContent.error;
      expect(notFound.code).toBe("WORKSPACE_NOT_FOUND");
      expect(notFound.message).not.toContain(dir.path);
      expect(JSON.stringify(answers)).not.toContain(dir.path);
    } finally {
      dir.cleanup();
    }
  }, 120_000);
});
