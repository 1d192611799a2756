/**
 * Parameter domains: the only values a template token can take. A list of choices
 * (scalars), or an integer range; either may name a default. Membership is exact: the
 * integer 25 is not the string "25".
 */
import type { ScalarValue } from "./workload-schema.ts";

export type ParameterDomain =
  | { kind: "choices"; choices: ScalarValue[]; default: ScalarValue | null }
  | { kind: "integer_range"; minimum: number; maximum: number; default: number | null };

type DomainSpec =
  | ScalarValue[]
  | { choices?: ScalarValue[]; minimum?: number; maximum?: number; default?: ScalarValue };

export function normalizeDomain(
  spec: DomainSpec,
  problem: (message: string) => void,
): ParameterDomain | null {
  if (Array.isArray(spec)) return checkedChoices(spec, null, problem);
  const ranged = spec.minimum !== undefined || spec.maximum !== undefined;
  if (spec.choices && ranged) return (problem("declares both choices and a range; use one"), null);
  if (spec.choices) return checkedChoices(spec.choices, spec.default ?? null, problem);
  if (spec.minimum === undefined || spec.maximum === undefined)
    return (problem("needs choices, or both minimum and maximum"), null);
  if (spec.minimum > spec.maximum)
    return (problem(`minimum ${spec.minimum} is greater than maximum ${spec.maximum}`), null);
  const domain: ParameterDomain = {
    kind: "integer_range",
    minimum: spec.minimum,
    maximum: spec.maximum,
    default: null,
  };
  if (spec.default !== undefined) {
    if (!inDomain(domain, spec.default))
      return (
        problem(`default ${JSON.stringify(spec.default)} is outside ${describeDomain(domain)}`),
        null
      );
    domain.default = spec.default as number;
  }
  return domain;
}

function checkedChoices(
  choices: ScalarValue[],
  fallback: ScalarValue | null,
  problem: (message: string) => void,
): ParameterDomain | null {
  if (choices.some((c) => typeof c === "number" && !Number.isFinite(c)))
    return (problem("choices must be finite"), null);
  const seen = new Set(choices.map((c) => `${typeof c}:${String(c)}`));
  if (seen.size !== choices.length) return (problem("choices must be distinct"), null);
  const domain: ParameterDomain = { kind: "choices", choices: [...choices], default: null };
  if (fallback !== null) {
    if (!inDomain(domain, fallback))
      return (problem(`default ${JSON.stringify(fallback)} is not one of the choices`), null);
    domain.default = fallback;
  }
  return domain;
}

export function inDomain(domain: ParameterDomain, value: unknown): boolean {
  if (domain.kind === "integer_range")
    return (
      Number.isInteger(value) &&
      (value as number) >= domain.minimum &&
      (value as number) <= domain.maximum
    );
  return domain.choices.some((choice) => choice === value);
}

export function describeDomain(domain: ParameterDomain): string {
  return domain.kind === "integer_range"
    ? `the integers ${domain.minimum}..${domain.maximum}`
    : `one of ${JSON.stringify(domain.choices.slice(0, 20))}` +
        `${domain.choices.length > 20 ? ` (and ${domain.choices.length - 20} more)` : ""}`;
}
