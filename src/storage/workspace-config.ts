/**
 * Workspace policy from `.diagnostics/config.toml`. Strict: an unknown key or a value of
 * the wrong type fails with its exact path, so a typo can never silently loosen a limit.
 */
import { INHERITED_BY_DEFAULT, WORKLOAD_PATH } from "../domain/environment-policy.ts";
import { parse, stringify } from "smol-toml";
import { FlameoxError } from "../domain/errors.ts";
import { MAX_PAGE_ROWS } from "../domain/page-size.ts";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * What each key may hold. Checked by hand rather than with a schema library: every
 * command opens the workspace, and loading arktype would add ~0.25 s to each start.
 */
type Rule =
  | { kind: "integer"; min: number; max?: number }
  | { kind: "number"; above: number; max: number }
  | { kind: "choice"; values: readonly string[] }
  | { kind: "names"; pattern: RegExp; maxItems: number }
  | { kind: "search_path" };

const positiveInt: Rule = { kind: "integer", min: 1 };

const CONFIG_RULES: Record<string, Record<string, Rule>> = {
  storage: {
    max_artifact_bytes: positiveInt,
    max_decompressed_bytes: positiveInt,
    write_lock_timeout_ms: { kind: "integer", min: 1, max: 600000 },
  },
  extraction: {
    worker_memory_bytes: { kind: "integer", min: 536870912 },
    worker_timeout_seconds: { kind: "number", above: 0, max: 86400 },
    max_worker_output_bytes: positiveInt,
    max_events: positiveInt,
    max_nesting_depth: { kind: "integer", min: 1, max: 10000 },
    scan_threads: { kind: "integer", min: -1, max: 1024 },
    nest_thread: { kind: "integer", min: -1, max: 1 },
  },
  analysis: {
    default_row_limit: { kind: "integer", min: 1, max: 1000 },
    max_row_limit: { kind: "integer", min: 1, max: MAX_PAGE_ROWS },
    cache_budget_mb: { kind: "integer", min: 0, max: 65536 },
  },
  execution: {
    child_environment_allowlist: {
      kind: "names",
      pattern: /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
      maxItems: 64,
    },
    workload_path: { kind: "search_path" },
    containment: { kind: "choice", values: ["trusted_local", "managed"] },
    max_output_bytes: positiveInt,
    resource_sampling_interval_ms: { kind: "integer", min: 25, max: 10000 },
    max_memory_bytes: positiveInt,
    min_free_bytes: { kind: "integer", min: 0 },
    graceful_shutdown_seconds: { kind: "number", above: 0, max: 60 },
  },
};

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** What is wrong with `value` under `rule`, or null. */
function problemOf(value: unknown, rule: Rule): string | null {
  switch (rule.kind) {
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return "must be an integer";
      if (value < rule.min) return `must be at least ${rule.min}`;
      return rule.max !== undefined && value > rule.max ? `must be at most ${rule.max}` : null;
    case "number":
      if (typeof value !== "number" || Number.isNaN(value)) return "must be a number";
      if (value <= rule.above) return `must be more than ${rule.above}`;
      return value > rule.max ? `must be at most ${rule.max}` : null;
    case "choice":
      return typeof value === "string" && rule.values.includes(value)
        ? null
        : `must be one of ${rule.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "search_path":
      if (typeof value !== "string" || value.length === 0 || value.length > 4096)
        return "must be a non-empty string of at most 4096 characters";
      return value
        .split(":")
        .every(
          (dir) => dir.startsWith("/") && !dir.includes("\u0000") && !dir.split("/").includes(".."),
        )
        ? null
        : "must list absolute directories separated by ':' (no empty entry, no '..')";
    case "names": {
      if (!Array.isArray(value)) return "must be an array of variable names";
      if (value.length > rule.maxItems) return `must have at most ${rule.maxItems} entries`;
      const bad = value.findIndex((name) => typeof name !== "string" || !rule.pattern.test(name));
      return bad >= 0 ? `[${bad}] must be a variable name matching ${rule.pattern.source}` : null;
    }
  }
}

/** Every problem of a parsed config, each with its exact path; unknown keys are problems. */
function configProblems(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [section, body] of Object.entries(raw)) {
    const rules = CONFIG_RULES[section];
    if (!rules) {
      problems.push(`${section} must be removed (unknown section)`);
      continue;
    }
    if (!isTable(body)) {
      problems.push(`${section} must be a table`);
      continue;
    }
    for (const [key, value] of Object.entries(body)) {
      const rule = rules[key];
      const problem = rule ? problemOf(value, rule) : "must be removed (unknown key)";
      if (problem)
        problems.push(
          `${section}.${key} ${problem} ` +
            `(was ${typeof value === "bigint" ? value : JSON.stringify(value)})`,
        );
    }
  }
  return problems;
}

export interface WorkspaceConfig {
  /** write_lock_timeout_ms: how long one attempt waits for the workspace write lock. */
  storage: {
    max_artifact_bytes: number;
    max_decompressed_bytes: number;
    write_lock_timeout_ms: number;
  };
  extraction: {
    worker_memory_bytes: number;
    worker_timeout_seconds: number;
    max_worker_output_bytes: number;
    max_events: number;
    max_nesting_depth: number;
    /**
     * Piece threads a parse worker starts beside its own to scan a large payload in pieces:
     * -1 as many as the machine has cores to spare (see workers/piece-pool.ts), 0 none
     * (every payload in one piece), N exactly N.
     */
    scan_threads: number;
    /**
     * Whether a trace's slices are nested on a thread of their own while its rows are written:
     * -1 where the machine has a core for it (see workers/nest-offload.ts), 0 never, 1 whenever
     * the worker starts threads at all.
     */
    nest_thread: number;
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
    /** The PATH of a workload that declares none (never flameox's own PATH). */
    workload_path: string;
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
  storage: {
    max_artifact_bytes: 4 * GiB,
    max_decompressed_bytes: 8 * GiB,
    write_lock_timeout_ms: 30_000,
  },
  extraction: {
    // An address-space cap, not RSS: WebAssembly engines reserve large virtual regions, and
    // parquet-wasm failed to grow its memory under 6 GiB on a 200 MB trace (peak RSS 2.9 GB).
    worker_memory_bytes: 8 * GiB,
    worker_timeout_seconds: 600,
    max_worker_output_bytes: 4 * GiB,
    // A bound on an import's work beside max_decompressed_bytes, not on its memory: streamed
    // formats spill what grows with events, and whole-payload ones meet the worker's cap first.
    // 50M refused 2 GB Perfetto traces (the corpus's Chromium startup trace repeated to 2 GB:
    // 86M events; the bench's generated one: 108M), which stream and spill like smaller ones.
    max_events: 1_000_000_000,
    max_nesting_depth: 256,
    scan_threads: -1,
    nest_thread: -1,
  },
  analysis: { default_row_limit: 50, max_row_limit: 1000, cache_budget_mb: 192 },
  execution: {
    child_environment_allowlist: [...INHERITED_BY_DEFAULT],
    workload_path: WORKLOAD_PATH,
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
    throw new FlameoxError(
      "WORKSPACE_INVALID",
      `Cannot parse .diagnostics/config.toml: ${(error as Error).message}`,
    );
  }
  const problems = configProblems(raw as Record<string, unknown>);
  if (problems.length > 0) {
    throw new FlameoxError(
      "WORKSPACE_INVALID",
      `Invalid .diagnostics/config.toml: ${problems.join("; ")}`,
      {
        remediation: ["Fix or remove the offending key; unknown keys are refused"],
      },
    );
  }
  const checked = raw as Partial<WorkspaceConfig>;
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
