/**
 * configure_workload edits flameox.toml surgically: comments and other entries survive; replace is
 * compare-and-swap.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configureWorkload } from "../../src/application/capture/configure-workload.ts";
import { readWorkloadFile } from "../../src/application/capture/workload-file.ts";
import { initWorkspace, openWorkspace, type Workspace } from "../../src/storage/workspace.ts";
import { tempDir } from "../helpers.ts";

let dir: { path: string; cleanup: () => void };
let ws: Workspace;
const file = () => join(dir.path, "flameox.toml");
const currentId = () => {
  const state = readWorkloadFile(dir.path);
  return state.state === "valid" ? state.config.configuration_id : null;
};

beforeAll(async () => {
  dir = tempDir("flameox-configure-");
  await initWorkspace(dir.path);
  ws = await openWorkspace(dir.path);
});
afterAll(() => {
  ws.close();
  dir.cleanup();
});

const ORIGINAL = `# Project workloads — keep this header
schema_version = 1

[workloads.alpha]   # the first one
argv = ["node", "alpha.js"]
timeout_seconds = 10

[workloads.alpha.parameters]
n = [1, 2]

# beta is owned by another team; do not touch
[workloads.beta]
argv = ["./bin/beta", "--fast"]

[experiments.scan]
workload = "alpha"   # experiment comment
`;

describe("configure_workload", () => {
  test("create into a missing file writes just that workload", () => {
    const result = configureWorkload(ws, {
      name: "first",
      operation: "create",
      spec: { argv: ["node", "x.js"] },
      source: "mcp_client",
    });
    expect(result).toMatchObject({
      changed: true,
      previous_configuration_id: null,
      path: "flameox.toml",
    });
    expect(readFileSync(file(), "utf8")).toBe('[workloads.first]\nargv = [ "node", "x.js" ]\n');
  });

  test("replace keeps every comment and unrelated entry byte for byte", () => {
    writeFileSync(file(), ORIGINAL);
    const before = currentId()!;
    const result = configureWorkload(ws, {
      name: "alpha",
      operation: "replace",
      expected_configuration_id: before,
      spec: {
        argv: ["node", "alpha.js", "{n}"],
        parameters: { n: [1, 2, 3] },
        timeout_seconds: 20,
      },
      source: "mcp_client",
    });
    expect(result.changed).toBe(true);
    expect(result.previous_configuration_id).toBe(before);
    const text = readFileSync(file(), "utf8");
    for (const kept of [
      "# Project workloads — keep this header",
      "schema_version = 1",
      "# beta is owned by another team; do not touch\n[workloads.beta]",
      'argv = ["./bin/beta", "--fast"]',
      'workload = "alpha"   # experiment comment',
    ]) {
      expect(text).toContain(kept);
    }
    expect(text).not.toContain("# the first one");
    const state = readWorkloadFile(dir.path);
    if (state.state !== "valid") throw new Error("invalid after edit");
    expect(state.config.workloads.alpha!.argv).toEqual(["node", "alpha.js", "{n}"]);
    expect(state.config.workloads.alpha!.timeout_seconds).toBe(20);
    expect(state.config.workloads.beta!.argv).toEqual(["./bin/beta", "--fast"]);
    expect(state.config.configuration_id).toBe(result.configuration_id);
    const change = ws.control.db
      .query(
        "SELECT source, operation, workload FROM configuration_changes ORDER BY recorded_at " +
          "DESC LIMIT 1",
      )
      .get();
    expect(change).toEqual({ source: "mcp_client", operation: "replace", workload: "alpha" });
  });

  test("a stale or missing expected_configuration_id is refused without writing", () => {
    const text = readFileSync(file(), "utf8");
    const spec = { argv: ["node", "other.js"] };
    expect(() =>
      configureWorkload(ws, {
        name: "beta",
        operation: "replace",
        expected_configuration_id: `sha256:${"0".repeat(64)}`,
        spec,
        source: "mcp_client",
      }),
    ).toThrow(expect.objectContaining({ code: "REVISION_CONFLICT" }));
    expect(() =>
      configureWorkload(ws, { name: "beta", operation: "replace", spec, source: "mcp_client" }),
    ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENTS" }));
    expect(() =>
      configureWorkload(ws, { name: "beta", operation: "create", spec, source: "mcp_client" }),
    ).toThrow(expect.objectContaining({ code: "REVISION_CONFLICT" }));
    expect(readFileSync(file(), "utf8")).toBe(text);
  });

  test("create is idempotent for an identical definition and appends a new one at the end", () => {
    const again = configureWorkload(ws, {
      name: "beta",
      operation: "create",
      spec: { argv: ["./bin/beta", "--fast"] },
      source: "mcp_client",
    });
    expect(again.changed).toBe(false);
    const added = configureWorkload(ws, {
      name: "gamma",
      operation: "create",
      spec: { argv: ["true"] },
      source: "cli",
    });
    expect(added.changed).toBe(true);
    expect(readFileSync(file(), "utf8")).toEndWith(
      'workload = "alpha"   # experiment comment\n\n[workloads.gamma]\nargv = [ "true" ]\n',
    );
  });

  test(
    "tables of one workload spread through the file are replaced together; a comment at the " +
      "end stays",
    () => {
      writeFileSync(
        file(),
        '[workloads.a]\nargv = ["x"]\n\n[workloads.a.parameters]\nn = [1]\n\n# b ' +
          'comment\n[workloads.b]\nargv = ["b"]\n[workloads.a.oracle]\nstrength = ' +
          '"execution_check"\nargv = ["true"]\n# end of file\n',
      );
      configureWorkload(ws, {
        name: "a",
        operation: "replace",
        expected_configuration_id: currentId()!,
        spec: { argv: ["y"] },
        source: "mcp_client",
      });
      expect(readFileSync(file(), "utf8")).toBe(
        '[workloads.a]\nargv = [ "y" ]\n\n# b comment\n[workloads.b]\nargv = ["b"]\n# end of ' +
          "file\n",
      );
    },
  );

  test(
    "an invalid definition or a workload written as dotted keys is refused; the file stays as " +
      "it was",
    () => {
      expect(() =>
        configureWorkload(ws, {
          name: "bad",
          operation: "create",
          spec: { argv: ["x", "{nope}"] },
          source: "mcp_client",
        }),
      ).toThrow(expect.objectContaining({ code: "CONFIGURATION_INVALID" }));
      expect(() =>
        configureWorkload(ws, {
          name: "bad",
          operation: "create",
          spec: { argv: ["x"], shell: "sh -c" },
          source: "mcp_client",
        }),
      ).toThrow(expect.objectContaining({ code: "CONFIGURATION_INVALID" }));
      writeFileSync(file(), '[workloads]\ndotted.argv = ["x"]\n');
      const id = currentId()!;
      expect(() =>
        configureWorkload(ws, {
          name: "dotted",
          operation: "replace",
          expected_configuration_id: id,
          spec: { argv: ["y"] },
          source: "mcp_client",
        }),
      ).toThrow(expect.objectContaining({ code: "CONFIGURATION_INVALID" }));
      expect(readFileSync(file(), "utf8")).toBe('[workloads]\ndotted.argv = ["x"]\n');
    },
  );
});
