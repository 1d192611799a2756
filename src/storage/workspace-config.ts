/**
 * Workspace policy from `.diagnostics/config.toml`. Strict: an unknown key or a value of
 * the wrong type fails with its exact path, so a typo can never silently loosen a limit.
 */
import { INHERITED_BY_DEFAULT } from "../domain/environment-policy.ts";
import { type } from "arktype";
import { parse, stringify } from "smol-toml";
import { FlameoxError } from "../domain/errors.ts";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

const positiveInt = type("number.integer > 0");

const ConfigSchema = type({
  "+": "reject",
  "storage?": { "+": "reject", "max_artifact_bytes?": positiveInt, "max_decompressed_bytes?": positiveInt },
  "extraction?": {
    "+": "reject",
    "worker_memory_bytes?": "number.integer >= 536870912",
    "worker_timeout_seconds?": "0 < number <= 86400",
    "max_worker_output_bytes?": positiveInt,
    "max_events?": positiveInt,
    "max_nesting_depth?": "1 <= number.integer <= 10000",
  },
  "analysis?": {
    "+": "reject",
    "default_row_limit?": "1 <= number.integer <= 1000",
    "max_row_limit?": "1 <= number.integer <= 10000",
    "cache_budget_mb?": "0 <= number.integer <= 65536",
  },
  "execution?": {
    "+": "reject",
    "child_environment_allowlist?": type(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/).array().atMostLength(64),
    "containment?": "'trusted_local' | 'managed'",
    "max_output_bytes?": positiveInt,
    "resource_sampling_interval_ms?": "25 <= number.integer <= 10000",
    "max_memory_bytes?": positiveInt,
    "min_free_bytes?": "number.integer >= 0",
    "graceful_shutdown_seconds?": "0 < number <= 60",
  },
});

export interface WorkspaceConfig {
  storage: { max_artifact_bytes: number; max_decompressed_bytes: number };
  extraction: {
    worker_memory_bytes: number;
    worker_timeout_seconds: number;
    max_worker_output_bytes: number;
    max_events: number;
    max_nesting_depth: number;
  };
  analysis: {
    default_row_limit: number;
    max_row_limit: number;
    /**
     * Memory a long-lived process (the MCP server) may keep for decoded evidence between
     * analyses: half for decoded parts, half for the SQL engine's tables. 0 keeps nothing.
     */
    cache_budget_mb: number;
  };
  /** Policy for captures; a workload or a request can choose within it, never loosen it. */
  execution: {
    child_environment_allowlist: string[];
    containment: "trusted_local" | "managed";
    max_output_bytes: number;
    resource_sampling_interval_ms: number;
    /** Sampled RSS of the whole workload tree above this stops the run (policy termination). */
    max_memory_bytes: number;
    /** Free bytes of the workspace filesystem below this stop the run; 0 disables the check. */
    min_free_bytes: number;
    graceful_shutdown_seconds: number;
  };
}

export const DEFAULT_CONFIG: WorkspaceConfig = {
  storage: { max_artifact_bytes: 4 * GiB, max_decompressed_bytes: 8 * GiB },
  extraction: {
    // An address-space cap, not RSS: WebAssembly engines reserve large virtual regions, and
    // parquet-wasm failed to grow its memory under 6 GiB on a 200 MB trace (peak RSS 2.9 GB).
    worker_memory_bytes: 8 * GiB,
    worker_timeout_seconds: 600,
    max_worker_output_bytes: 4 * GiB,
    max_events: 50_000_000,
    max_nesting_depth: 256,
  },
  analysis: { default_row_limit: 50, max_row_limit: 1000, cache_budget_mb: 192 },
  execution: {
    child_environment_allowlist: [...INHERITED_BY_DEFAULT],
    containment: "trusted_local",
    max_output_bytes: 16 * MiB,
    resource_sampling_interval_ms: 250,
    max_memory_bytes: 16 * GiB,
    min_free_bytes: 2 * GiB,
    graceful_shutdown_seconds: 5,
  },
};

export function parseConfig(text: string): WorkspaceConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new FlameoxError("WORKSPACE_INVALID", `Cannot parse .diagnostics/config.toml: ${(error as Error).message}`);
  }
  const checked = ConfigSchema(raw);
  if (checked instanceof type.errors) {
    throw new FlameoxError("WORKSPACE_INVALID", `Invalid .diagnostics/config.toml: ${checked.summary}`, {
      remediation: ["Fix or remove the offending key; unknown keys are refused"],
    });
  }
  return {
    storage: { ...DEFAULT_CONFIG.storage, ...checked.storage },
    extraction: { ...DEFAULT_CONFIG.extraction, ...checked.extraction },
    analysis: { ...DEFAULT_CONFIG.analysis, ...checked.analysis },
    execution: { ...DEFAULT_CONFIG.execution, ...checked.execution },
  };
}

export function defaultConfigToml(): string {
  return (
    "# flameox workspace policy. Unknown keys are refused. Values shown are the defaults.\n" +
    stringify(DEFAULT_CONFIG as unknown as Record<string, unknown>) +
    "\n"
  );
}
