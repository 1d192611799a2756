/**
 * Builds a child's environment from scratch: only allowlisted variables pass, and
 * loader, interpreter-injection and credential-like variables are always stripped, even
 * when allowlisted or declared, so no child inherits a way to run someone else's code or
 * a secret by accident.
 */
const ALWAYS_STRIPPED = new Set([
  "BASH_ENV", "CDPATH", "ENV", "GIT_ASKPASS", "SSH_ASKPASS", "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHOME", "PYTHONPATH",
  "PYTHONSTARTUP", "JAVA_TOOL_OPTIONS", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS", "PERL5LIB", "PERL5OPT", "RUBYLIB", "RUBYOPT",
  "GDBINIT", "GDBHISTFILE", "BUN_OPTIONS",
]);
const STRIPPED_PREFIXES = ["DYLD_", "GDB_", "GIT_CONFIG_", "LD_", "LLDB_"];
const CREDENTIAL_LIKE = /(^|_)(TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIALS?|COOKIES?)(_|$)/i;

export function isStrippedVariable(name: string): boolean {
  return ALWAYS_STRIPPED.has(name) || STRIPPED_PREFIXES.some((p) => name.startsWith(p)) || CREDENTIAL_LIKE.test(name);
}

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
