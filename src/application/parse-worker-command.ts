/**
 * How to start a parse worker: the same Bun runtime running `workers/parse.ts`, or, in a
 * `bun build --compile` binary (whose modules live under /$bunfs), the binary itself
 * with its hidden `__parse-worker` entry.
 */
import { fileURLToPath } from "node:url";

export function parseWorkerArgv(requestPath: string): string[] {
  const here = import.meta.url;
  if (here.includes("/$bunfs/") || here.includes("%24bunfs")) {
    return [process.execPath, "__parse-worker", requestPath];
  }
  const worker = fileURLToPath(new URL("../../workers/parse.ts", here));
  // A profiling aid for benchmarks: the worker writes a V8 CPU profile into this directory.
  const profileDir = process.env.FLAMEOX_WORKER_CPU_PROF_DIR;
  const profiling = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  return [process.execPath, ...profiling, worker, requestPath];
}
