/**
 * The subprocess broker: the only place in flameox that creates processes. It takes an
 * argv array (never a shell string), an explicit environment, one absolute deadline, an
 * optional address-space cap (applied with util-linux `prlimit`, because Bun ignores
 * Worker resource limits) and a byte cap on captured output. Each child leads its own
 * process group, and termination signals go to the whole group: SIGTERM, then SIGKILL
 * after a grace period.
 */
import { existsSync } from "node:fs";
import { FlameoxError } from "../domain/errors.ts";

export interface ProcessRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Absolute deadline, epoch milliseconds. */
  deadlineAt: number;
  /** Address-space cap in bytes (Linux, via prlimit --as). */
  memoryCapBytes?: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted and dropped. */
  maxOutputBytes: number;
  graceMs?: number;
  signal?: AbortSignal;
}

export type Termination =
  | { kind: "exited"; exitCode: number }
  | { kind: "signaled"; signal: string }
  | { kind: "timeout" }
  | { kind: "cancelled" };

export interface ProcessResult {
  termination: Termination;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  wallMs: number;
  /** Peak resident set size of the child in bytes, when the OS reported it. */
  maxRssBytes: number | null;
  memoryCapApplied: boolean;
}

const PRLIMIT_CANDIDATES = ["/usr/bin/prlimit", "/bin/prlimit"];

export function prlimitPath(): string | null {
  return process.platform === "linux" ? (PRLIMIT_CANDIDATES.find((p) => existsSync(p)) ?? null) : null;
}

export async function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  validateArgv(request.argv);
  const prlimit = request.memoryCapBytes ? prlimitPath() : null;
  const argv = prlimit ? [prlimit, `--as=${request.memoryCapBytes}`, "--", ...request.argv] : request.argv;
  const started = performance.now();
  const child = Bun.spawn(argv, {
    cwd: request.cwd,
    env: request.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let reason = null as "timeout" | "cancelled" | null;
  const stop = (why: "timeout" | "cancelled") => {
    if (reason) return;
    reason = why;
    killGroup(child.pid, "SIGTERM");
    setTimeout(() => killGroup(child.pid, "SIGKILL"), request.graceMs ?? 2000).unref();
  };
  const timer = setTimeout(() => stop("timeout"), Math.max(0, request.deadlineAt - Date.now()));
  const onAbort = () => stop("cancelled");
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  try {
    const [stdout, stderr] = await Promise.all([
      readCapped(child.stdout, request.maxOutputBytes),
      readCapped(child.stderr, request.maxOutputBytes),
    ]);
    const exitCode = await child.exited;
    // The leader is gone; make sure nothing it left in its group outlives it.
    killGroup(child.pid, "SIGKILL");
    const termination: Termination = reason
      ? { kind: reason }
      : child.signalCode
        ? { kind: "signaled", signal: String(child.signalCode) }
        : { kind: "exited", exitCode };
    return {
      termination,
      stdout: stdout.text,
      stderr: stderr.text,
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      wallMs: performance.now() - started,
      maxRssBytes: child.resourceUsage()?.maxRSS ?? null,
      memoryCapApplied: prlimit !== null,
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

function validateArgv(argv: string[]): void {
  if (argv.length === 0 || argv.some((a) => a.length === 0 || a.includes("\u0000"))) {
    throw new FlameoxError("EXECUTION_REFUSED", "Cannot start a process: argv must be non-empty, with no empty items and no NUL bytes");
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  for await (const chunk of stream) {
    if (kept >= cap) {
      truncated = true;
      continue;
    }
    const take = chunk.subarray(0, cap - kept);
    if (take.length < chunk.length) truncated = true;
    chunks.push(take);
    kept += take.length;
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}
