/**
 * A workload instance: a definition with every template token resolved from caller
 * values that lie in the declared domains. Its id digests the definition id and the
 * values, so two runs with the same instance id ran the same declared command.
 */
import { digestOf } from "../canonical-digest.ts";
import { FlameoxError } from "../errors.ts";
import { describeDomain, inDomain } from "./parameter-domain.ts";
import type { OracleDefinition, WorkloadDefinition } from "./project-config.ts";
import { expandTemplate, scalarText, templateParameters } from "./template.ts";
import type { ScalarValue } from "./workload-schema.ts";

export interface WorkloadInstance {
  name: string;
  workload_definition_id: string;
  workload_instance_id: string;
  parameters: Record<string, ScalarValue>;
  argv: string[];
  cwd: string;
  timeout_seconds: number;
  environment: Record<string, string>;
  writable_paths: string[];
  oracle: OracleDefinition | null;
}

export function instantiateWorkload(
  definition: WorkloadDefinition,
  requested: Record<string, unknown>,
): WorkloadInstance {
  const refuse = (message: string, field = "parameters") =>
    new FlameoxError(
      "INVALID_ARGUMENTS",
      `Cannot instantiate workload ${definition.name}: ${message}`,
      {
        details: { field },
        remediation: [
          `See the declared parameters with \`flameox workload show ${definition.name}\``,
        ],
      },
    );
  for (const name of Object.keys(requested)) {
    if (!definition.parameters[name])
      throw refuse(
        `${name} is not a declared parameter ` +
          `(declared: ${Object.keys(definition.parameters).join(", ") || "none"})`,
      );
  }
  const used = new Set(
    [...definition.argv, ...(definition.oracle?.argv ?? [])].flatMap(templateParameters),
  );
  const values: Record<string, ScalarValue> = {};
  for (const [name, domain] of Object.entries(definition.parameters)) {
    const value = requested[name] ?? domain.default;
    if (value === null || value === undefined) {
      if (used.has(name))
        throw refuse(
          `parameter ${name} has no value and no default; choose ${describeDomain(domain)}`,
        );
      continue;
    }
    if (!inDomain(domain, value))
      throw refuse(
        `${JSON.stringify(value)} is not a valid ${name}; expected ${describeDomain(domain)}`,
      );
    values[name] = value as ScalarValue;
  }
  const text = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, scalarText(v)]));
  return {
    name: definition.name,
    workload_definition_id: definition.workload_definition_id,
    workload_instance_id: digestOf({
      workload_definition_id: definition.workload_definition_id,
      parameters: values,
    }),
    parameters: values,
    argv: definition.argv.map((item) => expandTemplate(item, text)),
    cwd: definition.cwd,
    timeout_seconds: definition.timeout_seconds,
    environment: { ...definition.environment },
    writable_paths: [...definition.writable_paths],
    oracle: definition.oracle
      ? {
          ...definition.oracle,
          argv: definition.oracle.argv.map((item) => expandTemplate(item, text)),
        }
      : null,
  };
}
