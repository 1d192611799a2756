/**
 * Which environment variables a child may never inherit or be given: loader,
 * interpreter-injection and credential-like names. A pure rule, shared by the broker
 * (which strips them) and the workload validator (which refuses to declare them, so a
 * typo can never be silently dropped at run time).
 */
const ALWAYS_STRIPPED = new Set([
  "BASH_ENV", "CDPATH", "ENV", "GIT_ASKPASS", "SSH_ASKPASS", "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHOME", "PYTHONPATH",
  "PYTHONSTARTUP", "JAVA_TOOL_OPTIONS", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS", "PERL5LIB", "PERL5OPT", "RUBYLIB", "RUBYOPT",
  "GDBINIT", "GDBHISTFILE", "BUN_OPTIONS",
]);
const STRIPPED_PREFIXES = ["DYLD_", "GDB_", "GIT_CONFIG_", "LD_", "LLDB_"];
const CREDENTIAL_LIKE = /(^|_)(TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIALS?|COOKIES?)(_|$)/i;

/** A portable environment variable name. */
export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isStrippedVariable(name: string): boolean {
  return ALWAYS_STRIPPED.has(name) || STRIPPED_PREFIXES.some((p) => name.startsWith(p)) || CREDENTIAL_LIKE.test(name);
}
