/**
 * The behaviour probe of managed containment: it builds the very sandbox a workload gets
 * (same flags, a scratch project under the hidden /tmp) around a sleeping process, and
 * then inspects that process *from the host* through /proc: its namespaces must differ
 * from flameox's, it must hold no capability and have no-new-privileges set, its root
 * must be mounted read-only, the private directories must be empty tmpfs mounts, and it
 * must run under a seccomp filter flameox itself does not (the one that hides host Unix
 * sockets: seccomp-filter.ts).
 * Nothing the sandboxed process or the bwrap binary prints is believed, so a fake bwrap
 * that merely runs the command (or a real one with weaker flags) fails the probe.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ResolvedExecutable } from "../domain/capture.ts";
import {
  bubblewrapArgv,
  privateDirectories,
  type SandboxLayout,
  TRUSTED_BWRAP_PATHS,
} from "./containment.ts";
import { resolveExecutable } from "./executable-resolver.ts";
import { runProcess } from "./process-broker.ts";
import { sandboxSeccompProgram } from "./seccomp-filter.ts";
import { probeSocketRefusal } from "./socket-refusal-probe.ts";
import { walkTree } from "./process-tree.ts";

export interface SandboxProbeResult {
  /** Every check passed: the sandbox is proven here. */
  proven: boolean;
  /** The sandboxed process was found and inspected (false: bwrap never started it). */
  seen: boolean;
  reason: string;
  checks: Record<SandboxCheck, boolean>;
  /** bwrap's own diagnostic when it could not build the sandbox. */
  stderr: string;
}

export type SandboxCheck =
  | "user_namespace"
  | "network_namespace"
  | "pid_namespace"
  | "mount_namespace"
  | "no_capabilities"
  | "no_new_privileges"
  | "read_only_root"
  | "private_directories"
  | "writable_output"
  | "seccomp_filter"
  | "unix_sockets_refused";

const CHECKS: SandboxCheck[] = [
  "user_namespace",
  "network_namespace",
  "pid_namespace",
  "mount_namespace",
  "no_capabilities",
  "no_new_privileges",
  "read_only_root",
  "private_directories",
  "writable_output",
  "seccomp_filter",
  "unix_sockets_refused",
];
const SLEEP_CANDIDATES = ["/usr/bin/sleep", "/bin/sleep"];
const PROBE_TIMEOUT_MS = 10_000;

export async function probeSandbox(
  bwrapPath: string,
  home: string | undefined,
): Promise<SandboxProbeResult> {
  const failed = (reason: string, stderr = ""): SandboxProbeResult => ({
    proven: false,
    seen: false,
    reason,
    checks: Object.fromEntries(CHECKS.map((c) => [c, false])) as SandboxProbeResult["checks"],
    stderr,
  });
  if (!sandboxSeccompProgram())
    return failed(
      `flameox has no seccomp program for ${process.arch} (only x86_64), so host Unix ` +
        `sockets could not be hidden`,
    );
  const sleep = SLEEP_CANDIDATES.find((path) => existsSync(path));
  if (!sleep) return failed("no sleep(1) at /usr/bin or /bin to run inside the probe sandbox");
  const scratch = mkdtempSync(join(tmpdir(), "flameox-sandbox-probe-"));
  const project = join(scratch, "project");
  const layout: SandboxLayout = {
    projectRoot: project,
    diagnosticsDir: join(project, ".diagnostics"),
    writableRoots: [],
    outputDir: join(project, ".diagnostics", "out"),
    cwd: project,
    privateDirs: privateDirectories(home),
  };
  mkdirSync(layout.outputDir, { recursive: true });
  // A duration nobody else uses names the sandboxed process among the descendants.
  const inner = [sleep, `${PROBE_TIMEOUT_MS / 1000}.${process.pid}${Date.now() % 100000}`];
  // The filter's effect, tried from the host while the sandboxed process is inspected.
  const socketTrial = probeSocketRefusal(bwrapPath, layout);
  const controller = new AbortController();
  let leader: number | null = null;
  let finished = false;
  const running = runProcess({
    argv: bubblewrapArgv(bwrapPath, layout, inner),
    cwd: scratch,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
    deadlineAt: Date.now() + PROBE_TIMEOUT_MS,
    maxOutputBytes: 16 * 1024,
    graceMs: 200,
    signal: controller.signal,
    onSpawn: (child) => {
      leader = child.pid;
    },
  }).finally(() => {
    finished = true;
  });
  try {
    let checks: SandboxProbeResult["checks"] | null = null;
    const until = Date.now() + PROBE_TIMEOUT_MS - 1000;
    while (!checks && !finished && Date.now() < until) {
      await Bun.sleep(10);
      const target =
        leader === null
          ? null
          : walkTree([leader], 64).find((p) => cmdline(p.pid) === inner.join("\u0000"));
      if (target) checks = inspect(target.pid, layout);
    }
    controller.abort();
    const result = await running;
    if (!checks)
      return failed(
        `bwrap did not start the sandboxed ` +
          `process: ` +
          (result.stderr.trim().split("\n")[0]?.slice(0, 200) || describe(result.termination)),
        result.stderr,
      );
    // Without a tool to try the filter's effect, only its presence counts.
    const socket = await socketTrial.catch((error: Error) => ({
      exercised: false,
      refused: false,
      reason: `the trial could not be set up: ${error.message}`,
    }));
    checks.unix_sockets_refused = socket.exercised ? socket.refused : checks.seccomp_filter;
    const missing = CHECKS.filter((c) => !checks[c]);
    const socketNote = socket.exercised
      ? ", and a Unix socket of the host that a process outside reached was refused to a " +
        "process inside"
      : ` (that Unix sockets are refused was not tried: ${socket.reason})`;
    return missing.length === 0
      ? {
          proven: true,
          seen: true,
          reason:
            `bwrap built the sandbox and a process inside it was seen from the host in its own ` +
            `user, network, PID and mount namespaces, without capabilities, under its own ` +
            `seccomp filter, with a read-only root and private directories hidden${socketNote}`,
          checks,
          stderr: "",
        }
      : {
          proven: false,
          seen: true,
          reason:
            "a process inside the sandbox was seen from the host " +
            `without: ${missing.join(", ")}`,
          checks,
          stderr: result.stderr,
        };
  } finally {
    controller.abort();
    await running.catch(() => undefined);
    await socketTrial.catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function inspect(pid: number, layout: SandboxLayout): SandboxProbeResult["checks"] {
  const differs = (ns: string) => {
    const theirs = safe(() => readlinkSync(`/proc/${pid}/ns/${ns}`));
    const ours = safe(() => readlinkSync(`/proc/self/ns/${ns}`));
    return theirs !== null && ours !== null && theirs !== ours;
  };
  const status = safe(() => readFileSync(`/proc/${pid}/status`, "latin1")) ?? "";
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)$`, "m").exec(status)?.[1] ?? null;
  const noCaps = ["CapEff", "CapPrm", "CapBnd", "CapAmb"].every((name) => {
    const value = field(name);
    return value !== null && /^[0-9a-f]+$/i.test(value) && BigInt(`0x${value}`) === 0n;
  });
  const mounts = parseMountInfo(safe(() => readFileSync(`/proc/${pid}/mountinfo`, "utf8")) ?? "");
  // The mount that is visible at a path is the last one listed for it.
  const at = (path: string) => mounts.findLast((m) => m.mountPoint === path) ?? null;
  const root = at("/");
  return {
    user_namespace: differs("user"),
    network_namespace: differs("net"),
    pid_namespace: differs("pid"),
    mount_namespace: differs("mnt"),
    no_capabilities: status !== "" && noCaps,
    no_new_privileges: field("NoNewPrivs") === "1",
    read_only_root:
      root?.options.includes("ro") === true &&
      at(layout.projectRoot)?.options.includes("ro") === true,
    private_directories: layout.privateDirs.every((dir) => at(dir)?.fsType === "tmpfs"),
    writable_output: at(layout.outputDir)?.options.includes("rw") === true,
    // A filter of its own on top of whatever flameox itself runs under (a container's).
    seccomp_filter:
      field("Seccomp") === "2" && Number(field("Seccomp_filters") ?? "0") > ownSeccompFilters(),
    // Tried afterwards, with a connection attempt (socket-refusal-probe.ts).
    unix_sockets_refused: false,
  };
}

interface Mount {
  mountPoint: string;
  options: string[];
  fsType: string;
}

/** /proc/<pid>/mountinfo, as seen from that process's root; octal escapes (\040) decoded. */
export function parseMountInfo(text: string): Mount[] {
  const unescapeMountField = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
  return text
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      const [left, right] = line.split(" - ");
      const fields = left?.split(" ") ?? [];
      if (fields.length < 6 || !right) return [];
      return [
        {
          mountPoint: unescapeMountField(fields[4]!),
          options: fields[5]!.split(","),
          fsType: right.split(" ")[0] ?? "",
        },
      ];
    });
}

function ownSeccompFilters(): number {
  const status = safe(() => readFileSync("/proc/self/status", "latin1")) ?? "";
  return Number(/^Seccomp_filters:\s*(\d+)$/m.exec(status)?.[1] ?? "0");
}

function cmdline(pid: number): string | null {
  return safe(() => readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\u0000$/, ""));
}

function describe(termination: { kind: string }): string {
  return termination.kind === "exited" ? "bwrap exited early" : `bwrap ${termination.kind}`;
}

function safe<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/**
 * Finds the bubblewrap to use: a fixed system path that only root can replace (the file
 * and every directory above it owned by root, writable by nobody else), or else the first
 * `bwrap` on the child PATH outside the project. Where it was found is reported; either
 * way only the behaviour probe can make the sandbox count as available.
 */
export function locateBubblewrap(
  childPath: string | undefined,
  projectRoot: string,
): { executable: ResolvedExecutable; trustedPath: boolean } | { absent: string } {
  for (const path of TRUSTED_BWRAP_PATHS) {
    if (!existsSync(path) || !rootOwnedChain(path)) continue;
    try {
      return {
        executable: resolveExecutable({
          command: path,
          cwd: projectRoot,
          projectRoot,
          path: childPath,
        }),
        trustedPath: true,
      };
    } catch {
      // Not an executable regular file: try the next place.
    }
  }
  try {
    return {
      executable: resolveExecutable({
        command: "bwrap",
        cwd: projectRoot,
        projectRoot,
        path: childPath,
      }),
      trustedPath: false,
    };
  } catch (error) {
    return { absent: error instanceof Error ? error.message : String(error) };
  }
}

function rootOwnedChain(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    const info = safe(() => statSync(p));
    if (info?.uid !== 0 || (info.mode & 0o022) !== 0) return false;
    if (p === "/") return true;
  }
}
