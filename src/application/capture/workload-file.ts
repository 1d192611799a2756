/**
 * Reading `flameox.toml` at the project root. Missing, invalid and valid are distinct
 * states; a symbolic link is refused, so the file that declares what may run is the
 * file in the project, not something it points at.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FlameoxError } from "../../domain/errors.ts";
import {
  type ConfigDiagnostic,
  type ProjectConfig,
  parseProjectConfig,
} from "../../domain/workload/project-config.ts";

export const WORKLOAD_FILE = "flameox.toml";

export type WorkloadFileState =
  | { state: "missing"; text: null }
  | { state: "invalid"; text: string; diagnostics: ConfigDiagnostic[] }
  | { state: "valid"; text: string; config: ProjectConfig };

export function workloadFilePath(projectRoot: string): string {
  return join(projectRoot, WORKLOAD_FILE);
}

export function readWorkloadFile(projectRoot: string): WorkloadFileState {
  const path = workloadFilePath(projectRoot);
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch {
    return { state: "missing", text: null };
  }
  if (info.isSymbolicLink() || !info.isFile()) {
    return {
      state: "invalid",
      text: "",
      diagnostics: [
        {
          path: "(file)",
          message: `${WORKLOAD_FILE} must be a regular file, not a symbolic link or special file`,
        },
      ],
    };
  }
  const text = readFileSync(path, "utf8");
  const parsed = parseProjectConfig(text);
  return parsed.ok
    ? { state: "valid", text, config: parsed.config }
    : { state: "invalid", text, diagnostics: parsed.diagnostics };
}

/** The valid configuration, or a typed error saying why there is none. */
export function requireWorkloadConfig(projectRoot: string): ProjectConfig {
  const file = readWorkloadFile(projectRoot);
  if (file.state === "valid") return file.config;
  if (file.state === "missing") {
    throw new FlameoxError(
      "WORKLOAD_NOT_FOUND",
      `Cannot find ${WORKLOAD_FILE} at the project root; no workloads are declared`,
      {
        remediation: [
          "Declare a workload with configure_workload, or write [workloads.NAME] in flameox.toml",
        ],
      },
    );
  }
  throw invalidConfiguration(file.diagnostics);
}

export function invalidConfiguration(diagnostics: ConfigDiagnostic[]): FlameoxError {
  const shown = diagnostics
    .slice(0, 5)
    .map((d) => `${d.path}: ${d.message}`)
    .join("; ");
  return new FlameoxError(
    "CONFIGURATION_INVALID",
    `Invalid ${WORKLOAD_FILE}: ${shown}` +
      `${diagnostics.length > 5 ? ` (and ${diagnostics.length - 5} more)` : ""}`,
    {
      details: { diagnostics: diagnostics.slice(0, 50) },
      remediation: [
        "Fix the named keys; unknown keys are refused",
        "Check with `flameox workload list` or workload_configuration_status",
      ],
    },
  );
}
