/**
 * The shape of `flameox.toml`, as arktype types. Strict: an unknown key anywhere in a
 * section flameox owns fails with its exact path, so a typo can never silently change
 * what runs. The same types publish the JSON Schema of `configure_workload`.
 */
import { type } from "arktype";

export const WORKLOAD_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const MAX_PARAMETERS = 128;
export const MAX_WRITABLE_PATHS = 16;

export const ArgvItem = type("0 < string <= 4096");
export const Argv = ArgvItem.array().atLeastLength(1).atMostLength(1024);
export const Scalar = type("string <= 4096 | number | boolean");
const Timeout = type(`0 < number <= ${MAX_TIMEOUT_SECONDS}`);
const RelativePath = type("0 < string <= 1024");

/**
 * A parameter's domain: a list of choices, or a table with choices or an integer range and a
 * default.
 */
export const ParameterDomainSpec = Scalar.array()
  .atLeastLength(1)
  .atMostLength(1024)
  .or({
    "+": "reject",
    "choices?": Scalar.array().atLeastLength(1).atMostLength(1024),
    "minimum?": "number.integer",
    "maximum?": "number.integer",
    "default?": Scalar,
  });

export const OracleSpec = type({
  "+": "reject",
  strength: "'execution_check' | 'contract_check' | 'cross_treatment_equivalence'",
  argv: Argv,
  "timeout_seconds?": Timeout,
});

/** The fields of one workload, shared by the file schema and the configure_workload tool input. */
export const WORKLOAD_FIELDS = {
  argv: Argv.describe(
    "the command as an argv array: item 0 is the executable (a project path with a slash, or " +
      "a tool on PATH); {name} tokens take declared parameters",
  ),
  "description?": type("string <= 500").describe("what the workload measures"),
  "cwd?": RelativePath.describe("working directory relative to the project root (default .)"),
  "timeout_seconds?": Timeout.describe("deadline of one run in seconds (default 300)"),
  "parameters?": type({ "[string]": ParameterDomainSpec }).describe(
    "parameter name -> list of choices, or {choices|minimum+maximum, default}",
  ),
  "environment?": type({ "[string]": "string <= 4096" }).describe(
    "extra environment variables for the workload (loader and credential names are refused)",
  ),
  "writable_paths?": RelativePath.array()
    .atMostLength(MAX_WRITABLE_PATHS)
    .describe("project-relative paths the workload may write under managed containment"),
  "oracle?": OracleSpec.describe(
    "a validation command run after a successful capture; exit 0 passes",
  ),
  "containment?": type("'trusted_local' | 'managed'").describe(
    "the least containment the workload may run under: managed refuses every trusted_local " +
      "plan (default: the workspace policy)",
  ),
} as const;

export const WorkloadSpec = type({ "+": "reject", ...WORKLOAD_FIELDS });

/**
 * The whole file. `experiments` belongs to the experiment feature, which validates its
 * own entries; here it only has to be a table of tables.
 */
export const ProjectConfigSpec = type({
  "+": "reject",
  "schema_version?": "1",
  "workloads?": { "[string]": WorkloadSpec },
  "experiments?": { "[string]": "Record<string, unknown>" },
});

export type WorkloadSpec = typeof WorkloadSpec.infer;
export type ProjectConfigSpec = typeof ProjectConfigSpec.infer;
export type ScalarValue = typeof Scalar.infer;
