/**
 * Builds a child's environment from scratch: only allowlisted variables pass, and
 * loader, interpreter-injection and credential-like variables are always stripped, even
 * when allowlisted or declared, so no child inherits a way to run someone else's code or
 * a secret by accident. A workload's environment (workloadEnvironment) is the closed
 * allow-list that src/domain/environment-policy.ts describes.
 */
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  inheritedValueAccepted,
  isStrippedVariable,
  NEVER_INHERITED,
  WORKLOAD_PATH,
} from "../domain/environment-policy.ts";

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

/**
 * A workload's environment: the fixed base (the policy's workload_path, by default
 * WORKLOAD_PATH, and the account's home), the
 * inherit list's names whose values are plain data, then the declared variables and the
 * adapter's settings. Nothing else of `source` (flameox's own environment) reaches it.
 */
export function workloadEnvironment(
  policy: { child_environment_allowlist: readonly string[]; workload_path?: string },
  source: Record<string, string | undefined>,
  declared: Record<string, string> = {},
): Record<string, string> {
  const inherit = policy.child_environment_allowlist;
  const env: Record<string, string> = { PATH: policy.workload_path ?? WORKLOAD_PATH };
  const home = accountHome();
  if (home) env.HOME = home;
  for (const name of inherit) {
    const value = source[name];
    if (
      value === undefined ||
      NEVER_INHERITED.has(name.toUpperCase()) ||
      isStrippedVariable(name) ||
      !inheritedValueAccepted(name, value)
    )
      continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(declared)) {
    if (!isStrippedVariable(name)) env[name] = value;
  }
  return env;
}

/**
 * The home directory of the account flameox runs as, from /etc/passwd (never $HOME, which
 * whoever started flameox chose; Bun's os.userInfo() reads $HOME). Null when the account
 * is not listed there (a directory service) or its home is not absolute: the workload
 * then gets no HOME unless it declares one.
 */
export function accountHome(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  let passwd: string;
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch {
    return null;
  }
  for (const line of passwd.split("\n")) {
    const fields = line.split(":");
    if (fields.length >= 7 && fields[2] === String(uid)) {
      const home = fields[5]!;
      return isAbsolute(home) && home !== "/" ? home : null;
    }
  }
  return null;
}
