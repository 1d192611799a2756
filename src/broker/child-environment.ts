/**
 * Builds a child's environment from scratch: only allowlisted variables pass, and
 * loader, interpreter-injection and credential-like variables are always stripped, even
 * when allowlisted or declared, so no child inherits a way to run someone else's code or
 * a secret by accident.
 */
import { isStrippedVariable } from "../domain/environment-policy.ts";

export { isStrippedVariable };

export function buildChildEnvironment(
  source: Record<string, string | undefined>,
  allowlist: readonly string[],
  overrides: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allowlist) {
    const value = source[name];
    if (value !== undefined && !isStrippedVariable(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (!isStrippedVariable(name)) env[name] = value;
  }
  return env;
}
