/**
 * CPU time of the calling thread alone (Linux: /proc/thread-self/stat), where a process's
 * rusage sums every thread. The parser thread's CPU is the import's critical path on a
 * machine with a core for each of the worker's threads; on fewer cores the threads share
 * them and the wall time follows the process's CPU instead.
 */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** This thread's user + system CPU so far, ms; undefined where /proc does not say. */
export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "latin1");
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
