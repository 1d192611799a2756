/**
 * Each command loads only what it needs: `--version` and the top-level `--help` no
 * command module at all, and `status` and `import` (in the CLI process; the parse worker
 * is its own process) none of the heavy packages: arktype, apache-arrow, parquet-wasm,
 * DuckDB-WASM, the MCP SDK, protobufjs. Each of them costs tens to hundreds of ms of
 * every start. Checked in a fresh process, whose module cache nothing else has filled.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO, tempDir } from "../helpers.ts";

const main = join(REPO, "src", "cli", "main.ts");
const HEAVY =
  /node_modules\/(arktype|@ark|apache-arrow|parquet-wasm|@duckdb|@modelcontextprotocol|protobufjs)\//;
const COMMAND_MODULES = /\/src\/(application|storage|cli\/commands|mcp)\//;
const REQUEST_MODULE = /\/src\/application\/requests\/[a-z-]+-requests?\.ts$/;
const dir = tempDir();
afterAll(() => dir.cleanup());

/**
 * Runs the CLI's commands in one fresh process and returns the modules it loaded that match
 * `pattern`.
 */
function loadedBy(commands: string[][], pattern: RegExp): string[] {
  const probe = `const { runCli } = await import(${JSON.stringify(main)});
    for (const argv of ${JSON.stringify(commands)}) { const code = await runCli(argv); if (code \
!== 0) throw new Error(argv.join(" ") + " exited " + code); }
    const pattern = new RegExp(${JSON.stringify(pattern.source)});
    console.log(JSON.stringify(Object.keys(require.cache).filter((p) => pattern.test(p))));`;
  const r = Bun.spawnSync([process.execPath, "-e", probe], {
    cwd: dir.path,
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!);
}

describe("lazy loading", () => {
  test("--version and the top-level --help load no command module", () => {
    expect(loadedBy([["--version"], ["--help"]], COMMAND_MODULES)).toEqual([]);
  });

  test("a profile analysis loads its own request schemas, not those of the other analyses", () => {
    // Exits 2 or 3 (no such artifact): what matters is what running the command loaded.
    const requestsLoadedBy = (argv: string[]): string[] => {
      const probe = `const { runCli } = await import(${JSON.stringify(main)});
        await runCli(${JSON.stringify(argv)});
        const pattern = new RegExp(${JSON.stringify(REQUEST_MODULE.source)});
        const loaded = Object.keys(require.cache).filter((p) => pattern.test(p));
        console.log(JSON.stringify(loaded.map((p) => p.split("/").at(-1))));`;
      const r = Bun.spawnSync([process.execPath, "-e", probe], {
        cwd: dir.path,
        env: { ...process.env, NO_COLOR: "1" },
      });
      return JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!);
    };
    const artifact = "sha256:0123456789abcdef";
    expect(requestsLoadedBy(["analyze", "hotspots", artifact, "--json"])).toEqual([
      "profile-analysis-request.ts",
    ]);
    expect(
      requestsLoadedBy(["trace", "window", artifact, "--start", "0", "--end", "1", "--json"]),
    ).toEqual(["trace-window-request.ts"]);
  }, 60_000);

  test("study and investigation commands load their own requests, no Parquet to list", () => {
    const init = Bun.spawnSync([process.execPath, main, "init", dir.path], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(init.exitCode).toBe(0);
    const PARQUET = /node_modules\/(apache-arrow|parquet-wasm)\//;
    const loaded = (argv: string[][]) =>
      loadedBy(argv, new RegExp(`${REQUEST_MODULE.source}|${PARQUET.source}`)).map((p) =>
        p.replace(/.*\/(node_modules\/[^/]+|[^/]+\.ts)(\/.*)?$/, "$1"),
      );
    // Listing investigations needs neither the study commands' schemas nor the hotspots
    // recipe that recording an analysis runs.
    expect(loaded([["investigations", "list"]])).toEqual(["investigation-requests.ts"]);
    // A measurements query reads Parquet, but checks its request through its own schema only.
    expect(loaded([["measurements", "query"]]).filter((p) => p.endsWith(".ts"))).toEqual([
      "measurement-requests.ts",
    ]);
  }, 60_000);

  test("status and import load none of the heavy packages in the CLI process", () => {
    const init = Bun.spawnSync([process.execPath, main, "init", dir.path], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(init.exitCode).toBe(0);
    const profile = join(REPO, "fixtures", "samples", "sample.cpuprofile");
    expect(loadedBy([["status"], ["import", profile]], HEAVY)).toEqual([]);
  }, 120_000);
});
