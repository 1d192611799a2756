/**
 * The subprocess broker: the only place in flameox that creates processes. It takes an
 * argv array (never a shell string), an explicit environment, one absolute deadline, an
 * optional memory cap (a memory cgroup where the host lets flameox create one, else an
 * address-space rlimit through util-linux `prlimit`; Bun ignores Worker resource limits)
 * and a byte cap on captured output. Each child leads its own
 * session and process group; termination signals go to the whole group, SIGTERM then
 * SIGKILL after a grace period, and to every descendant seen leaving it (or, for
 * captures, adopted back by flameox as a subreaper). Bound executables run as the bytes
 * that were verified, through an inherited descriptor, and a sandbox gets its seccomp
 * program the same way. Output goes to memory, to a
 * file, or only through a hash; the process tree can be sampled from /proc.
 */
import type { FileSink } from "bun";
import { existsSync } from "node:fs";
import type { ResolvedExecutable, SignalRecord } from "../domain/capture.ts";
import { FlameoxError } from "../domain/errors.ts";
import { OutputSink, type OutputTarget, type SinkResult } from "./output-sink.ts";
import { PinnedExecutables } from "./pinned-executables.ts";
import {
  closeSeccompProgram,
  openSeccompProgram,
  SECCOMP_FD_PLACEHOLDER,
} from "./seccomp-filter.ts";
import { ProcessReaper } from "./process-reaper.ts";
import { MemoryCgroup } from "./memory-cgroup.ts";
import { readStat } from "./process-tree.ts";
import { enableSubreaper, reapAdopted, trackSpawned, untrackSpawned } from "./subreaper.ts";
import {
  type PolicyViolation,
  ResourceSampler,
  type SamplerReport,
  type SamplingRequest,
} from "./resource-sampler.ts";

export interface ProcessRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Absolute deadline, epoch milliseconds. */
  deadlineAt: number;
  /** Memory cap in bytes (Linux: a memory cgroup, else prlimit --as; see memory-cgroup.ts). */
  memoryCapBytes?: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted and dropped. */
  maxOutputBytes: number;
  /**
   * A smaller cap for stderr alone (e.g. when stdout is a large file but stderr is kept in memory).
   */
  maxStderrBytes?: number;
  graceMs?: number;
  signal?: AbortSignal;
  stdout?: OutputTarget;
  stderr?: OutputTarget;
  /** Sample the process tree and track descendants that leave the group (captures). */
  sampling?: SamplingRequest;
  /**
   * Executables to run as the exact bytes bound (pinned-executables.ts): each is opened and
   * verified just before the spawn, and argv items naming one execute its descriptor.
   */
  pinned?: readonly ResolvedExecutable[];
  /**
   * The child's standard input: these bytes, written once they resolve, then closed (a rejection
   * closes it empty). Lets a child start, and load what it needs, before its input is known.
   * Without it, stdin is /dev/null.
   */
  stdin?: Promise<Uint8Array>;
  /** Called once the child exists, before it can have done much: the place to record a lease. */
  onSpawn?: (child: { pid: number; startTime: string | null }) => void;
}

export type Termination =
  | { kind: "exited"; exitCode: number }
  | { kind: "signaled"; signal: string }
  | { kind: "timeout" }
  | { kind: "cancelled" }
  /** Stopped by a resource policy; `signal` is the one that ended the process, when one did. */
  | ({ kind: "policy"; signal: string | null } & PolicyViolation);

export interface ProcessResult {
  termination: Termination;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  output: { stdout: SinkResult; stderr: SinkResult };
  wallMs: number;
  /**
   * The child's ru_maxrss in bytes, when the OS reported it. An upper bound: Linux folds the
   * spawning process's RSS into an exec'd child's figure (see ResourceSampler's leader_hwm_bytes).
   */
  maxRssBytes: number | null;
  memoryCapApplied: boolean;
  /** How the cap was applied: a memory cgroup, an address-space rlimit, or not at all. */
  memoryCap: "cgroup" | "address_space" | null;
  /** The kernel killed the child for going over its memory cgroup's limit. */
  memoryCapExceeded: boolean;
  pid: number;
  signalsSent: SignalRecord[];
  escapedDescendantsKilled: number;
  /** Escaped descendants still alive after the final SIGKILL (they got away). */
  escapedDescendantsSurvived: number;
  /**
   * How descendants that leave the process group are kept in reach: flameox as a child
   * subreaper (orphans come back to it), or only by sampling and scanning the session.
   * null when the request asked for no sampling.
   */
  descendantTracking: "subreaper" | "session_scan" | null;
  resources: SamplerReport | null;
}

const PRLIMIT_CANDIDATES = ["/usr/bin/prlimit", "/bin/prlimit"];
const DEFAULT_GRACE_MS = 2000;

export function prlimitPath(): string | null {
  return process.platform === "linux"
    ? (PRLIMIT_CANDIDATES.find((p) => existsSync(p)) ?? null)
    : null;
}

/**
 * Sampled runs (captures and their oracles) take turns within a process. flameox as a
 * subreaper adopts every orphan of every child, and an orphan no longer says whose it
 * was; a run claims those that started after its own leader (subreaper.ts), which is
 * exact only while no other sampled run is going. Time spent waiting for the turn is
 * added to the deadline. (Two measurements at once on the same machine would also
 * disturb each other.)
 */
let sampledTurn: Promise<void> = Promise.resolve();

export async function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  validateArgv(request.argv);
  if (!request.sampling) return runNow(request);
  const previous = sampledTurn;
  let release!: () => void;
  sampledTurn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const waitStarted = Date.now();
  try {
    await previous;
    const waited = Date.now() - waitStarted;
    return await runNow(
      waited > 0 ? { ...request, deadlineAt: request.deadlineAt + waited } : request,
    );
  } finally {
    release();
  }
}

async function runNow(request: ProcessRequest): Promise<ProcessResult> {
  // Captures (sampled runs) keep orphaned descendants in reach by adopting them. Any
  // adopted orphan that died since (whatever run left it) is collected at the start and
  // end of every run, so none stays a zombie while flameox keeps running.
  const subreaper = request.sampling ? enableSubreaper() : false;
  reapAdopted();
  const cgroup = request.memoryCapBytes ? MemoryCgroup.create(request.memoryCapBytes) : null;
  const prlimit = request.memoryCapBytes && !cgroup ? prlimitPath() : null;
  const grace = request.graceMs ?? DEFAULT_GRACE_MS;
  // Sinks open their files before the spawn, so an unwritable target fails without a child.
  const sinks = [
    new OutputSink(request.stdout ?? { kind: "memory" }, request.maxOutputBytes),
    new OutputSink(
      request.stderr ?? { kind: "memory" },
      request.maxStderrBytes ?? request.maxOutputBytes,
    ),
  ] as const;
  // Verified last, as close to the spawn as possible.
  let pins: PinnedExecutables;
  try {
    pins = PinnedExecutables.open(request.pinned ?? []);
  } catch (error) {
    for (const sink of sinks) sink.finish();
    await cgroup?.dispose();
    throw error;
  }
  // bwrap's `--seccomp` names the descriptor after the pinned executables.
  const seccompAt = request.argv.indexOf("--seccomp") + 1;
  const wantsSeccomp = seccompAt > 0 && request.argv[seccompAt] === SECCOMP_FD_PLACEHOLDER;
  let seccomp: number | null = null;
  if (wantsSeccomp) {
    try {
      seccomp = openSeccompProgram();
      if (seccomp === null)
        throw new FlameoxError(
          "CONTAINMENT_UNAVAILABLE",
          `Cannot start the sandbox: flameox has no seccomp program for ${process.arch}, so ` +
            `host Unix sockets could not be hidden`,
        );
    } catch (error) {
      pins.close();
      for (const sink of sinks) sink.finish();
      await cgroup?.dispose();
      throw error;
    }
  }
  const descriptors = seccomp === null ? pins.descriptors : [...pins.descriptors, seccomp];
  const command = pins.rewrite(request.argv);
  if (wantsSeccomp) command[seccompAt] = String(3 + pins.descriptors.length);
  const argv = prlimit ? [prlimit, `--as=${request.memoryCapBytes}`, "--", ...command] : command;
  // A directly executed pinned program still sees the path it was bound by as argv[0].
  const argv0 = argv[0] !== request.argv[0] && !prlimit ? request.argv[0] : undefined;
  const started = performance.now();
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(argv, request, descriptors, argv0);
  } catch (error) {
    await cgroup?.dispose();
    throw error;
  } finally {
    pins.close();
    closeSeccompProgram(seccomp);
  }
  trackSpawned(child.pid);
  const inCgroup = cgroup?.add(child.pid) ?? false;
  const leaderStart = readStat(child.pid)?.startTime ?? null;
  request.onSpawn?.({ pid: child.pid, startTime: leaderStart });
  if (request.stdin) feedStdin(child.stdin as FileSink, request.stdin);

  let reason: "timeout" | "cancelled" | PolicyViolation | null = null;
  const sampler = request.sampling
    ? new ResourceSampler(child.pid, request.sampling, (v) => stop(v))
    : null;
  const reaper = new ProcessReaper(
    child.pid,
    started,
    () => sampler?.observed.values() ?? [],
    sampler !== null,
    subreaper ? leaderStart : null,
  );
  let killTimer: ReturnType<typeof setTimeout> | null = null;
  function stop(why: "timeout" | "cancelled" | PolicyViolation): void {
    if (reason) return;
    reason = why;
    const label = typeof why === "string" ? why : "policy";
    reaper.signalAll("SIGTERM", label);
    killTimer = setTimeout(() => reaper.signalAll("SIGKILL", label), grace);
  }
  const draining = Promise.all([sinks[0].drain(child.stdout), sinks[1].drain(child.stderr)]);
  sampler?.start();
  const deadline = setTimeout(() => stop("timeout"), Math.max(0, request.deadlineAt - Date.now()));
  const onAbort = () => stop("cancelled");
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  try {
    const exitCode = await child.exited;
    sampler?.stop();
    if (killTimer) clearTimeout(killTimer);
    // The leader is gone; nothing it left behind may outlive it.
    const stopped = reason as typeof reason;
    reaper.signalAll(
      "SIGKILL",
      stopped === null ? "leader_exited" : typeof stopped === "string" ? stopped : "policy",
    );
    const survived = request.sampling ? await reaper.survivors(200) : 0;
    // A descendant that escaped unseen may still hold a pipe open; wait a grace period, then
    // abandon the stream.
    const drained = await Promise.race([
      draining.then(() => true),
      Bun.sleep(Math.min(grace, 2000)).then(() => false),
    ]);
    if (!drained) for (const sink of sinks) sink.abandon();
    const [stdout, stderr] = [sinks[0].finish(), sinks[1].finish()];
    return {
      termination: terminationOf(stopped, child.signalCode, exitCode),
      stdout: stdout.text,
      stderr: stderr.text,
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      output: { stdout, stderr },
      wallMs: performance.now() - started,
      maxRssBytes: child.resourceUsage()?.maxRSS ?? null,
      memoryCapApplied: inCgroup || prlimit !== null,
      memoryCap: inCgroup ? "cgroup" : prlimit !== null ? "address_space" : null,
      memoryCapExceeded: cgroup?.oomKilled() ?? false,
      pid: child.pid,
      signalsSent: reaper.signals,
      escapedDescendantsKilled: reaper.escapedKilledCount,
      escapedDescendantsSurvived: survived,
      descendantTracking: request.sampling ? (subreaper ? "subreaper" : "session_scan") : null,
      resources: sampler?.report() ?? null,
    };
  } finally {
    untrackSpawned(child.pid);
    reapAdopted();
    clearTimeout(deadline);
    sampler?.stop();
    request.signal?.removeEventListener("abort", onAbort);
    await cgroup?.dispose();
  }
}

function spawn(
  argv: string[],
  request: ProcessRequest,
  descriptors: number[],
  argv0: string | undefined,
) {
  try {
    return Bun.spawn(argv, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.stdin ? "pipe" : "ignore", "pipe", "pipe", ...descriptors],
      detached: true,
      ...(argv0 ? { argv0 } : {}),
    });
  } catch (error) {
    throw new FlameoxError(
      "PROCESS_FAILED",
      `Cannot start ${argv[0]}: ${(error as Error).message}`,
      {
        remediation: ["Check that the executable exists and is executable"],
      },
    );
  }
}

/**
 * Writes the input to the child's stdin once it resolves, then closes it; closes it empty if the
 * input is refused. A child gone meanwhile (a broken pipe) is no error here: its termination says
 * what happened.
 */
function feedStdin(sink: FileSink, input: Promise<Uint8Array>): void {
  const close = async () => {
    await sink.end();
  };
  input
    .then(async (bytes) => {
      sink.write(bytes);
      await close();
    }, close)
    .catch(() => {});
}

function terminationOf(
  reason: "timeout" | "cancelled" | PolicyViolation | null,
  signalCode: string | number | null,
  exitCode: number,
): Termination {
  if (reason === "timeout" || reason === "cancelled") return { kind: reason };
  if (reason)
    return { kind: "policy", signal: signalCode === null ? null : String(signalCode), ...reason };
  return signalCode
    ? { kind: "signaled", signal: String(signalCode) }
    : { kind: "exited", exitCode };
}

function validateArgv(argv: string[]): void {
  if (argv.length === 0 || argv.some((a) => a.length === 0 || a.includes("\u0000"))) {
    throw new FlameoxError(
      "EXECUTION_REFUSED",
      "Cannot start a process: argv must be non-empty, with no empty items and no NUL bytes",
    );
  }
}
