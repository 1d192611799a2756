/**
 * Which environment variables reach a child. A child's environment is built from nothing:
 * only the workspace's inherit list (execution.child_environment_allowlist, by default
 * INHERITED_BY_DEFAULT) is copied from flameox's own environment, then the workload's
 * declared variables and the adapter's own settings are added. Whatever the source, a
 * name in a refused family never passes: loader and libc knobs, shell start-up hooks,
 * the module-path and option variables of interpreters and runtimes (which make a host
 * tool load project code), git's own configuration, and credential-like names. Names
 * are compared case-insensitively, since several runtimes read lower-case spellings.
 *
 * A pure rule, shared by the broker (which drops them) and the workload validator
 * (which refuses to declare them, so a typo can never be silently dropped at run time).
 */

/** What flameox copies from its own environment when the workspace does not say otherwise. */
export const INHERITED_BY_DEFAULT = ["PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES"] as const;

const REFUSED_NAMES = new Set([
  // Shells and their start-up hooks.
  "BASH_ENV", "ENV", "CDPATH", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "ZDOTDIR",
  // libc: loader, character-set converters, locale data, tunables, resolver, allocator hooks.
  "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_TRACE",
  // Node.js, npm and Bun.
  "NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS", "NODE_REPL_EXTERNAL_MODULE", "NODE_ICU_DATA", "NODE_PRESERVE_SYMLINKS", "NODE_TLS_REJECT_UNAUTHORIZED",
  "BUN_OPTIONS", "BUN_INSTALL", "BUNFIG",
  // JVM, Python, Perl, Ruby, Lua, Tcl, PHP, .NET.
  "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "PERLLIB", "PERL5LIB", "PERL5OPT", "PERL5DB", "RUBYLIB", "RUBYOPT",
  "LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "PHPRC", "PHP_INI_SCAN_DIR",
  // Debuggers and credential helpers.
  "GDBINIT", "GDBHISTFILE", "GIT_ASKPASS", "SSH_ASKPASS", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
]);
const REFUSED_PREFIXES = ["LD_", "DYLD_", "GIT_", "GDB_", "LLDB_", "PYTHON", "PERL_", "RUBY_", "GEM_", "BUNDLE_", "NPM_CONFIG_", "YARN_", "BUN_CONFIG_", "LUA_INIT_", "DOTNET_", "CORECLR_", "COMPLUS_", "BASH_FUNC_", "MALLOC_"];
const CREDENTIAL_LIKE = /(^|_)(TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIALS?|COOKIES?)(_|$)/i;

/** A portable environment variable name. */
export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isStrippedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return REFUSED_NAMES.has(upper) || REFUSED_PREFIXES.some((p) => upper.startsWith(p)) || CREDENTIAL_LIKE.test(name) || !ENVIRONMENT_NAME.test(name);
}
