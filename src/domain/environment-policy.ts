/**
 * Which environment variables reach a child. A workload's environment is a closed
 * allow-list, built from nothing:
 *
 * 1. a fixed base that flameox sets itself, never copied from its own environment:
 *    `PATH` is the workspace policy's execution.workload_path (by default WORKLOAD_PATH,
 *    system directories only root can write) and `HOME` is the
 *    account's home from the password database. flameox's own environment is chosen by
 *    whoever started it (an MCP client starts the server), so inheriting PATH would let
 *    the caller decide which `node` an approved `["node", …]` runs, and inheriting HOME
 *    would let it seed start-up files (a user site-packages, `.npmrc`, `.gitconfig`);
 * 2. the names on the workspace's inherit list (execution.child_environment_allowlist,
 *    by default INHERITED_BY_DEFAULT: locale, time zone and GPU selection), copied from
 *    flameox's environment when their value is plain data (inheritedValueAccepted);
 * 3. the workload's declared `environment`: part of the approved canonical form, so an
 *    approved declaration is the only way to give a workload another PATH or HOME;
 * 4. the adapter's own settings.
 *
 * Whatever the source, a name in a refused family never passes, and declaring one is a
 * validation error, approved or not: loader and libc knobs, shell start-up hooks, the
 * module-path and option variables of interpreters and runtimes (which make a host tool
 * load code that no digest binds: approval pins the executable's bytes, not a library or
 * module that a variable names), git's own configuration, and credential-like names.
 * Names are compared case-insensitively, since several runtimes read lower-case spellings.
 *
 * A pure rule, shared by the broker (which drops them) and the workload validator
 * (which refuses to declare them, so a typo can never be silently dropped at run time).
 */

/** The PATH of every workload that does not declare one: directories only root can write. */
export const WORKLOAD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Set by flameox itself (WORKLOAD_PATH, the account's home) or declared; never inherited, even when
 * listed.
 */
export const NEVER_INHERITED = new Set(["PATH", "HOME"]);

/** What flameox copies from its own environment when the workspace does not say otherwise. */
export const INHERITED_BY_DEFAULT = [
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_COLLATE",
  "LC_MONETARY",
  "LC_MESSAGES",
  "TZ",
  "CUDA_VISIBLE_DEVICES",
] as const;

/**
 * Locale names are plain words: glibc and gettext treat a name with a slash as a path to
 * load locale data from, so such a value is not inherited. A time zone may name a zone
 * file (`Europe/Paris`, `:/etc/localtime`), but never climbs with `..`.
 */
const PLAIN_VALUE = /^[A-Za-z0-9_.,:@+-]{0,256}$/;
const TZ_VALUE = /^[A-Za-z0-9_.,:@+<>/-]{0,256}$/;

/**
 * Whether an inherited value may pass: locale and GPU names are plain words, TZ a zone name or
 * file.
 */
export function inheritedValueAccepted(name: string, value: string): boolean {
  if (name === "TZ") return TZ_VALUE.test(value) && !value.split("/").includes("..");
  if (
    name === "LANG" ||
    name === "LANGUAGE" ||
    name.startsWith("LC_") ||
    name === "CUDA_VISIBLE_DEVICES"
  )
    return PLAIN_VALUE.test(value);
  return !value.includes("\u0000");
}

const REFUSED_NAMES = new Set([
  // Shells and their start-up hooks.
  "BASH_ENV",
  "ENV",
  "CDPATH",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "IFS",
  "ZDOTDIR",
  // libc: loader, character-set converters, locale data, tunables, resolver, allocator hooks.
  "GCONV_PATH",
  "GLIBC_TUNABLES",
  "LOCPATH",
  "NLSPATH",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
  "MALLOC_TRACE",
  // Node.js, npm and Bun.
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_EXTRA_CA_CERTS",
  "NODE_REPL_EXTERNAL_MODULE",
  "NODE_ICU_DATA",
  "NODE_PRESERVE_SYMLINKS",
  "NODE_TLS_REJECT_UNAUTHORIZED",
  "BUN_OPTIONS",
  "BUN_INSTALL",
  "BUNFIG",
  // JVM, Python, Perl, Ruby, Lua, Tcl, PHP, .NET.
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "PERLLIB",
  "PERL5LIB",
  "PERL5OPT",
  "PERL5DB",
  "RUBYLIB",
  "RUBYOPT",
  "LUA_INIT",
  "LUA_PATH",
  "LUA_CPATH",
  "TCLLIBPATH",
  "PHPRC",
  "PHP_INI_SCAN_DIR",
  // Debuggers and credential helpers.
  "GDBINIT",
  "GDBHISTFILE",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
]);
const REFUSED_PREFIXES = [
  "LD_",
  "DYLD_",
  "GIT_",
  "GDB_",
  "LLDB_",
  "PYTHON",
  "PERL_",
  "RUBY_",
  "GEM_",
  "BUNDLE_",
  "NPM_CONFIG_",
  "YARN_",
  "BUN_CONFIG_",
  "LUA_INIT_",
  "DOTNET_",
  "CORECLR_",
  "COMPLUS_",
  "BASH_FUNC_",
  "MALLOC_",
];
const CREDENTIAL_LIKE = /(^|_)(TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIALS?|COOKIES?)(_|$)/i;

/** A portable environment variable name. */
export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isStrippedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    REFUSED_NAMES.has(upper) ||
    REFUSED_PREFIXES.some((p) => upper.startsWith(p)) ||
    CREDENTIAL_LIKE.test(name) ||
    !ENVIRONMENT_NAME.test(name)
  );
}
