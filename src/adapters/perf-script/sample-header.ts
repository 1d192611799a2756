/**
 * The first line of a `perf script` sample. Its fields depend on `-F` and perf's version:
 *
 *   comm tid [cpu] time: period event:          (default; pid/tid with -F pid,tid)
 *   comm pid/tid  time: event:                  (no period)
 *   comm tid event:                             (old perf, no time)
 *   pid/tid  time:                              (-F without comm and event)
 *   comm pid/tid time: event:  ip sym (dso)     (-G: the sampled frame on the same line)
 *
 * (with -F the command is right-aligned, so the line may start with spaces).
 *
 * A command name may contain spaces and digits ("V8 WorkerThread", "Thread 2"), so the
 * line is read with the time as its anchor when it has one, and a single number is a
 * thread id (perf prints the pid only when asked).
 */

export interface SampleHeader {
  comm: string | null;
  pid: string | null;
  tid: string | null;
  cpu: number | null;
  /**
   * Sample time (perf's clock, usually since boot) as whole seconds and the nanoseconds
   * after them, kept apart: a host up for 105 days is past 2^53 ns. Null when not printed.
   */
  seconds: number | null;
  fractionNs: number;
  period: number | null;
  /** The event as printed (`cycles:u`), null when not printed. */
  event: string | null;
  /** What follows the event: a frame with -G, a tracepoint's fields, or nothing. */
  rest: string;
}

const WITH_TIME =
  /^(?:(\S.*?)\s+)?(-?\d+)(?:\/(-?\d+))?(?:\s+\[(\d+)\])?\s+(\d+)\.(\d{1,9}):(?:\s+(?:(\d+)\s+)?(\S+):)?(?:\s+(.*))?$/;
const WITHOUT_TIME =
  /^(?:(\S.*?)\s+)?(-?\d+)(?:\/(-?\d+))?(?:\s+\[(\d+)\])?\s+(?:(\d+)\s+)?(\S+):(?:\s+(.*))?$/;

/**
 * A period or time beyond 2^53 cannot be summed exactly into int64 columns: the line is no sample
 * header.
 */
const safe = (h: SampleHeader): SampleHeader | null =>
  (h.period === null || h.period <= Number.MAX_SAFE_INTEGER) &&
  (h.seconds === null || h.seconds <= Number.MAX_SAFE_INTEGER)
    ? h
    : null;

export function parseSampleHeader(text: string): SampleHeader | null {
  // perf right-aligns the command in a 16-character column when it prints fields with -F.
  const line = text.trimStart();
  const timed = WITH_TIME.exec(line);
  if (timed) {
    const [, comm, first, second, cpu, seconds, fraction, period, event, rest] = timed;
    return safe({
      comm: comm?.trim() || null,
      pid: second === undefined ? null : first!,
      tid: second ?? first!,
      cpu: cpu === undefined ? null : Number(cpu),
      seconds: Number(seconds),
      fractionNs: Number(fraction!.padEnd(9, "0")),
      period: period === undefined ? null : Number(period),
      event: event ?? null,
      rest: rest?.trim() ?? "",
    });
  }
  const untimed = WITHOUT_TIME.exec(line);
  if (!untimed) return null;
  const [, comm, first, second, cpu, period, event, rest] = untimed;
  return safe({
    comm: comm?.trim() || null,
    pid: second === undefined ? null : first!,
    tid: second ?? first!,
    cpu: cpu === undefined ? null : Number(cpu),
    seconds: null,
    fractionNs: 0,
    period: period === undefined ? null : Number(period),
    event: event!,
    rest: rest?.trim() ?? "",
  });
}
