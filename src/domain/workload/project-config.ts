/**
 * Parses and validates `flameox.toml` text into normalized workload definitions (no
 * I/O). Structural checks come from the arktype spec; the rules arktype cannot say are
 * checked here: names, template tokens, parameter domains, environment names, relative
 * paths. Every problem is reported with its exact path, all at once.
 */
import { posix } from "node:path";
import { parse } from "smol-toml";
import { type } from "arktype";
import { digestOf } from "../canonical-digest.ts";
import { ENVIRONMENT_NAME, isStrippedVariable } from "../environment-policy.ts";
import { normalizeDomain, type ParameterDomain } from "./parameter-domain.ts";
import { templateParameters } from "./template.ts";
import {
  DEFAULT_TIMEOUT_SECONDS,
  MAX_PARAMETERS,
  PARAMETER_NAME,
  ProjectConfigSpec,
  WORKLOAD_NAME,
  type WorkloadSpec,
} from "./workload-schema.ts";

export interface OracleDefinition {
  strength: "execution_check" | "contract_check" | "cross_treatment_equivalence";
  argv: string[];
  timeout_seconds: number;
}

/**
 * A workload as declared, with defaults filled in; `workload_definition_id` is its canonical
 * digest.
 */
export interface WorkloadDefinition {
  name: string;
  workload_definition_id: string;
  description: string | null;
  argv: string[];
  cwd: string;
  timeout_seconds: number;
  parameters: Record<string, ParameterDomain>;
  environment: Record<string, string>;
  writable_paths: string[];
  oracle: OracleDefinition | null;
  /** Declared least containment; null leaves it to the workspace policy and the plan. */
  containment: "trusted_local" | "managed" | null;
}

/**
 * Everything the canonical digest covers: what a person approves (the definition less its name and
 * id).
 */
export type CanonicalWorkload = Omit<WorkloadDefinition, "name" | "workload_definition_id">;

export interface ConfigDiagnostic {
  path: string;
  message: string;
}

export interface ProjectConfig {
  /** Canonical digest of the whole parsed file (formatting and comments aside). */
  configuration_id: string;
  workloads: Record<string, WorkloadDefinition>;
  /** The parsed document, for sections other features own. */
  document: Record<string, unknown>;
}

export type ParsedProjectConfig =
  | { ok: true; config: ProjectConfig }
  | { ok: false; diagnostics: ConfigDiagnostic[] };

export function parseProjectConfig(text: string): ParsedProjectConfig {
  let document: Record<string, unknown>;
  try {
    document = plainValues(parse(text)) as Record<string, unknown>;
  } catch (error) {
    return {
      ok: false,
      diagnostics: [
        {
          path: "(file)",
          message: `Cannot parse TOML: ${(error as Error).message.split("\n")[0]}`,
        },
      ],
    };
  }
  const checked = ProjectConfigSpec(document);
  if (checked instanceof type.errors) {
    return {
      ok: false,
      diagnostics: checked.map((e) => ({ path: e.path.join(".") || "(file)", message: e.message })),
    };
  }
  const diagnostics: ConfigDiagnostic[] = [];
  const workloads: Record<string, WorkloadDefinition> = {};
  for (const [name, spec] of Object.entries(checked.workloads ?? {})) {
    const definition = normalizeWorkload(name, spec, `workloads.${name}`, diagnostics);
    if (definition) workloads[name] = definition;
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  return { ok: true, config: { configuration_id: digestOf(document), workloads, document } };
}

/**
 * Validates one workload spec on its own (configure_workload checks it before touching the file).
 */
export function normalizeWorkload(
  name: string,
  spec: WorkloadSpec,
  at: string,
  diagnostics: ConfigDiagnostic[],
): WorkloadDefinition | null {
  const before = diagnostics.length;
  const problem = (path: string, message: string) =>
    diagnostics.push({ path: `${at}${path}`, message });
  if (!WORKLOAD_NAME.test(name))
    problem("", `workload name ${JSON.stringify(name)} must match ${WORKLOAD_NAME.source}`);

  const parameters: Record<string, ParameterDomain> = {};
  const names = Object.keys(spec.parameters ?? {});
  if (names.length > MAX_PARAMETERS)
    problem(
      ".parameters",
      `declares ${names.length} parameters; at most ${MAX_PARAMETERS} are allowed`,
    );
  for (const [parameter, domainSpec] of Object.entries(spec.parameters ?? {})) {
    if (!PARAMETER_NAME.test(parameter))
      problem(`.parameters.${parameter}`, `parameter name must match ${PARAMETER_NAME.source}`);
    const domain = normalizeDomain(domainSpec, (message) =>
      problem(`.parameters.${parameter}`, message),
    );
    if (domain) parameters[parameter] = domain;
  }
  checkTemplates(spec.argv, ".argv", parameters, problem);
  if (spec.oracle) checkTemplates(spec.oracle.argv, ".oracle.argv", parameters, problem);

  for (const [variable, value] of Object.entries(spec.environment ?? {})) {
    if (!ENVIRONMENT_NAME.test(variable))
      problem(`.environment.${variable}`, "is not a valid environment variable name");
    else if (isStrippedVariable(variable))
      problem(
        `.environment.${variable}`,
        "is a loader, interpreter or credential variable; flameox never passes it to a child",
      );
    if (value.includes("\u0000")) problem(`.environment.${variable}`, "contains a NUL byte");
  }
  const cwd = relativePath(spec.cwd ?? ".", (message) => problem(".cwd", message));
  const writable = (spec.writable_paths ?? []).map((path, i) =>
    relativePath(path, (message) => problem(`.writable_paths[${i}]`, message)),
  );
  if (diagnostics.length > before) return null;

  const body = {
    description: spec.description ?? null,
    argv: [...spec.argv],
    cwd: cwd!,
    timeout_seconds: spec.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    parameters,
    environment: { ...(spec.environment ?? {}) },
    writable_paths: [...new Set(writable as string[])].sort(),
    oracle: spec.oracle
      ? {
          strength: spec.oracle.strength,
          argv: [...spec.oracle.argv],
          timeout_seconds:
            spec.oracle.timeout_seconds ?? spec.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
        }
      : null,
    containment: spec.containment ?? null,
  };
  return { name, workload_definition_id: workloadDigest(body), ...body };
}

/** The canonical form of a definition: the fields its digest covers, and nothing else. */
export function canonicalWorkload(definition: WorkloadDefinition): CanonicalWorkload {
  const { name: _name, workload_definition_id: _id, ...body } = definition;
  return body;
}

/**
 * The canonical digest. An undeclared containment is left out of the digested document,
 * so definitions written before the key existed keep their ids (and their approvals).
 */
export function workloadDigest(body: CanonicalWorkload): string {
  return digestOf({ ...body, containment: body.containment ?? undefined });
}

function checkTemplates(
  argv: readonly string[],
  at: string,
  parameters: Record<string, ParameterDomain>,
  problem: (path: string, message: string) => void,
): void {
  argv.forEach((item, i) => {
    if (item.includes("\u0000")) problem(`${at}[${i}]`, "contains a NUL byte");
    const used = templateParameters(item);
    if (i === 0 && used.length > 0)
      problem(
        `${at}[0]`,
        "the executable cannot be a template; declare one workload per executable",
      );
    for (const name of used) {
      if (!parameters[name])
        problem(
          `${at}[${i}]`,
          `uses {${name}}, which is not a declared parameter (write {{ for a literal brace)`,
        );
    }
  });
}

/** A project-relative path: no NUL, not absolute, never above the root, never into .diagnostics. */
export function relativePath(path: string, problem: (message: string) => void): string | null {
  if (path.includes("\u0000")) return (problem("contains a NUL byte"), null);
  if (posix.isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path))
    return (problem("must be relative to the project root"), null);
  const normal = posix.normalize(path).replace(/\/+$/, "") || ".";
  if (normal === ".." || normal.startsWith("../"))
    return (problem("must stay inside the project root"), null);
  if (normal === ".diagnostics" || normal.startsWith(".diagnostics/"))
    return (problem("cannot name the flameox workspace (.diagnostics)"), null);
  return normal;
}

/** TOML dates become ISO strings, so the canonical digest sees their value. */
function plainValues(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainValues);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValues(v)]));
  return value;
}
