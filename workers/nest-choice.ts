/**
 * Whether a parse worker nests a trace's slices on a thread of its own (nest-offload.ts). A
 * module of its own: the worker decides before it knows the format, and loads the thread's
 * code only when it starts one.
 */
import { availableParallelism } from "node:os";

/**
 * Cores from which a trace's nesting gets a thread by default: the parser's, the encode
 * thread's and its own. On fewer the three share them: measured on 2 cores (Chrome 100 MB,
 * alternating imports), the parser thread's CPU fell 2.22 -> 1.86 s but the import's wall
 * time did not move, and the process spent ~0.1 s more CPU.
 */
export const NEST_THREAD_MIN_CORES = 3;

/**
 * Whether to nest on a thread: `setting` is extraction.nest_thread (-1 by the cores, 0 never,
 * 1 always); either way only where the worker starts threads at all (`threaded`: its encode
 * thread runs, so the payload is large and the memory budget has room).
 */
export function useNestThread(
  setting: number,
  threaded: boolean,
  cores = availableParallelism(),
): boolean {
  if (!threaded || setting === 0) return false;
  return setting === 1 || cores >= NEST_THREAD_MIN_CORES;
}
