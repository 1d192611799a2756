/**
 * Managed containment with bubblewrap: read-only root, private /tmp, no network (a new,
 * empty network namespace), its own PID namespace (every descendant dies with the
 * sandbox), the workspace store hidden, and only the declared writable roots plus the
 * capture's own output directory writable. Nothing here decides whether containment is
 * available; the probe result does, and an unavailable guarantee refuses the plan.
 */
export interface SandboxLayout {
  /** Absolute canonical project root: bound read-only again after the private /tmp, which could hide it. */
  projectRoot: string;
  /** Absolute `.diagnostics` directory: hidden behind an empty tmpfs. */
  diagnosticsDir: string;
  /** Absolute, canonical, existing directories the workload may write. */
  writableRoots: string[];
  /** Absolute capture output directory (inside `.diagnostics`, bound back in). */
  outputDir: string;
  cwd: string;
}

export function bubblewrapArgv(bwrapPath: string, layout: SandboxLayout, command: string[]): string[] {
  return [
    bwrapPath,
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--die-with-parent",
    "--new-session",
    "--ro-bind", layout.projectRoot, layout.projectRoot,
    "--tmpfs", layout.diagnosticsDir,
    ...layout.writableRoots.flatMap((root) => ["--bind", root, root]),
    "--bind", layout.outputDir, layout.outputDir,
    // The empty tmpfs over the store is made read-only too; the output bind inside it stays writable.
    "--remount-ro", layout.diagnosticsDir,
    "--chdir", layout.cwd,
    "--",
    ...command,
  ];
}

/** The readiness probe: can this host create the namespaces the sandbox needs? It runs bwrap itself inside. */
export function bubblewrapProbeArgv(bwrapPath: string): string[] {
  return [bwrapPath, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--dev", "/dev", "--proc", "/proc", "--", bwrapPath, "--version"];
}
