/**
 * Managed containment with bubblewrap. The sandbox runs in its own user namespace with
 * every capability dropped (so a root workload holds no privilege over the host: it
 * cannot remount, bypass file permissions or create further namespaces), a read-only
 * root, private empty directories over the host's private and socket-bearing paths
 * (/tmp, /var/tmp, /run, /root, /home and $HOME) and empty files over the shadow
 * databases and SSH host keys (root's own files, which uid 0 inside may still read), no network (an
 * empty network namespace,
 * which also holds its own abstract Unix sockets), its own PID, IPC and UTS namespaces
 * (every descendant dies with the sandbox), the workspace store hidden, and only the
 * declared writable roots plus the capture's own output directory writable.
 *
 * Nothing here decides whether containment is available: the behaviour probe
 * (sandbox-probe.ts) does, by looking at a sandboxed process from the host.
 */
import { lstatSync, readdirSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { accountHome } from "./child-environment.ts";
import { SECCOMP_FD_PLACEHOLDER } from "./seccomp-filter.ts";

export interface SandboxLayout {
  /**
   * Absolute canonical project root: bound read-only again after the private directories, which
   * could hide it (bubblewrap creates the directories above it).
   */
  projectRoot: string;
  /** Absolute `.diagnostics` directory: hidden behind an empty tmpfs. */
  diagnosticsDir: string;
  /** Absolute, canonical, existing directories the workload may write. */
  writableRoots: string[];
  /** Absolute capture output directory (inside `.diagnostics`, bound back in). */
  outputDir: string;
  cwd: string;
  /** Host directories replaced by empty ones (privateDirectories()). */
  privateDirs: string[];
}

/**
 * Where a trusted bubblewrap may live: system directories only root can write. A bwrap
 * elsewhere (first on some PATH) is used only when the behaviour probe proves it isolates.
 */
export const TRUSTED_BWRAP_PATHS = [
  "/usr/bin/bwrap",
  "/bin/bwrap",
  "/usr/local/bin/bwrap",
] as const;

/**
 * Host paths that hold private data or Unix sockets of other programs; each is replaced by an empty
 * tmpfs.
 */
const PRIVATE_CANDIDATES = [
  "/tmp",
  "/var/tmp",
  "/run",
  "/var/run",
  "/root",
  "/home",
  "/var/lib/sss/pipes",
  "/var/spool",
];

/**
 * The directories to hide, for a given $HOME and the account's home (the workload's HOME):
 * existing real directories (a symbolic link such as /var/run -> /run is covered by its
 * target), outermost only.
 */
export function privateDirectories(home: string | undefined): string[] {
  const candidates = [...PRIVATE_CANDIDATES];
  for (const dir of [home, accountHome()])
    if (dir && isAbsolute(dir) && dir !== "/") candidates.push(dir);
  const dirs = candidates.filter((path) => {
    try {
      return lstatSync(path).isDirectory();
    } catch {
      return false;
    }
  });
  return [...new Set(dirs)]
    .sort()
    .filter((dir, _, all) => !all.some((other) => other !== dir && isBeneath(other, dir)));
}

/**
 * Host secrets readable by their owner, root, whom uid 0 in the sandbox still is: each is replaced
 * by an empty file.
 */
const SECRET_FILES = [
  "/etc/shadow",
  "/etc/gshadow",
  "/etc/shadow-",
  "/etc/gshadow-",
  "/etc/security/opasswd",
  "/etc/sudoers",
];

/** Existing secret files to hide: the shadow databases and the SSH host keys. */
export function secretFiles(): string[] {
  const hostKeys = (() => {
    try {
      return readdirSync("/etc/ssh")
        .filter((name) => name.endsWith("_key"))
        .map((name) => `/etc/ssh/${name}`);
    } catch {
      return [];
    }
  })();
  return [...SECRET_FILES, ...hostKeys].filter((path) => {
    try {
      return lstatSync(path).isFile();
    } catch {
      return false;
    }
  });
}

export function bubblewrapArgv(
  bwrapPath: string,
  layout: SandboxLayout,
  command: string[],
): string[] {
  return [
    bwrapPath,
    // A user namespace with every capability dropped: uid 0 inside holds no privilege
    // over host objects, and no-new-privileges (set by bwrap) keeps setuid binaries inert.
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // No Unix socket of the host by path, no io_uring, no other ABI (seccomp-filter.ts);
    // the broker hands the program over on an inherited descriptor.
    "--seccomp",
    SECCOMP_FD_PLACEHOLDER,
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    ...layout.privateDirs.flatMap((dir) => ["--tmpfs", dir]),
    ...secretFiles().flatMap((file) => ["--ro-bind", "/dev/null", file]),
    "--ro-bind",
    layout.projectRoot,
    layout.projectRoot,
    "--tmpfs",
    layout.diagnosticsDir,
    ...layout.writableRoots.flatMap((root) => ["--bind", root, root]),
    "--bind",
    layout.outputDir,
    layout.outputDir,
    // The empty tmpfs over the store is made read-only too; the output bind inside it stays
    // writable.
    "--remount-ro",
    layout.diagnosticsDir,
    "--chdir",
    layout.cwd,
    "--",
    ...command,
  ];
}

function isBeneath(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
