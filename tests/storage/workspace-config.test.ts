/**
 * The workspace policy check: strict, with the exact path of every offending key, and
 * without a schema library (every command opens the workspace, so its start pays for it).
 */
import { describe, expect, test } from "bun:test";
import {
  DEFAULT_CONFIG,
  defaultConfigToml,
  parseConfig,
} from "../../src/storage/workspace-config.ts";

const invalid = (toml: string) => {
  try {
    parseConfig(toml);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error(`accepted: ${toml}`);
};

describe("workspace config", () => {
  test("the written defaults read back as the defaults", () => {
    expect(parseConfig(defaultConfigToml())).toEqual(DEFAULT_CONFIG);
    expect(parseConfig("")).toEqual(DEFAULT_CONFIG);
  });

  test("values within their ranges override the defaults", () => {
    const config = parseConfig(
      "[extraction]\nworker_memory_bytes = 536870912\nworker_timeout_seconds = " +
        '0.5\n[execution]\ncontainment = "managed"\nchild_environment_allowlist = ["PATH", ' +
        '"_X1"]\nmin_free_bytes = 0\nworkload_path = "/opt/node/bin:/usr/bin"\n',
    );
    expect(config.extraction.worker_memory_bytes).toBe(536870912);
    expect(config.extraction.worker_timeout_seconds).toBe(0.5);
    expect(config.execution.containment).toBe("managed");
    expect(config.execution.child_environment_allowlist).toEqual(["PATH", "_X1"]);
    expect(config.execution.min_free_bytes).toBe(0);
    expect(config.execution.workload_path).toBe("/opt/node/bin:/usr/bin");
    expect(config.storage).toEqual(DEFAULT_CONFIG.storage);
  });

  test.each([
    ["[storage]\nmax_artifact_bytez = 5\n", "storage.max_artifact_bytez must be removed"],
    ["[storag]\nmax_artifact_bytes = 5\n", "storag must be removed"],
    ["storage = 5\n", "storage must be a table"],
    ["[storage]\nmax_artifact_bytes = 0\n", "storage.max_artifact_bytes must be at least 1"],
    ["[storage]\nmax_artifact_bytes = 1.5\n", "storage.max_artifact_bytes must be an integer"],
    ['[storage]\nmax_artifact_bytes = "5"\n', "storage.max_artifact_bytes must be an integer"],
    [
      "[extraction]\nworker_memory_bytes = 1048576\n",
      "extraction.worker_memory_bytes must be at least 536870912",
    ],
    [
      "[extraction]\nworker_timeout_seconds = 0\n",
      "extraction.worker_timeout_seconds must be more than 0",
    ],
    [
      "[extraction]\nworker_timeout_seconds = 90000\n",
      "extraction.worker_timeout_seconds must be at most 86400",
    ],
    [
      "[extraction]\nmax_nesting_depth = 10001\n",
      "extraction.max_nesting_depth must be at most 10000",
    ],
    ["[extraction]\nscan_threads = -2\n", "extraction.scan_threads must be at least -1"],
    ["[analysis]\ndefault_row_limit = 0\n", "analysis.default_row_limit must be at least 1"],
    [
      '[execution]\ncontainment = "none"\n',
      'execution.containment must be one of "trusted_local", "managed"',
    ],
    [
      '[execution]\nchild_environment_allowlist = "PATH"\n',
      "execution.child_environment_allowlist must be an array",
    ],
    [
      '[execution]\nchild_environment_allowlist = ["PATH", "LD_PRELOAD=x"]\n',
      "execution.child_environment_allowlist [1] must be a variable name",
    ],
    [
      `[execution]\nchild_environment_allowlist = ` +
        `[${Array.from({ length: 65 }, (_, i) => `"V${i}"`).join(", ")}]\n`,
      "must have at most 64 entries",
    ],
    [
      '[execution]\nworkload_path = "bin:/usr/bin"\n',
      "execution.workload_path must list absolute directories",
    ],
    [
      '[execution]\nworkload_path = "/usr/bin::/bin"\n',
      "execution.workload_path must list absolute directories",
    ],
    [
      '[execution]\nworkload_path = "/opt/../tmp"\n',
      "execution.workload_path must list absolute directories",
    ],
    [
      "[execution]\nresource_sampling_interval_ms = 10\n",
      "execution.resource_sampling_interval_ms must be at least 25",
    ],
    ["[execution]\nmin_free_bytes = -1\n", "execution.min_free_bytes must be at least 0"],
    [
      "[execution]\ngraceful_shutdown_seconds = 61\n",
      "execution.graceful_shutdown_seconds must be at most 60",
    ],
  ])("refuses %j", (toml, expected) => {
    const error = invalid(toml);
    expect(error.code).toBe("WORKSPACE_INVALID");
    expect(error.message).toContain(expected);
  });

  test("every problem is reported at once", () => {
    const error = invalid("[storage]\nmax_artifact_bytes = 0\n[analysis]\nmax_row_limit = 0\n");
    expect(error.message).toContain("storage.max_artifact_bytes");
    expect(error.message).toContain("analysis.max_row_limit");
  });

  test("a syntax error is WORKSPACE_INVALID too", () => {
    expect(invalid("[storage\n").code).toBe("WORKSPACE_INVALID");
  });
});
