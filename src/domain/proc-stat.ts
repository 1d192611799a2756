/**
 * Parses Linux `/proc/<pid>/stat` text (no I/O). The command name sits in parentheses and
 * may itself contain spaces or parentheses, so fields are counted from the last `)`.
 */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Field 22: start time in clock ticks since boot; with the boot id it names one process. */
  startTime: string;
  /** Field 24: resident pages. */
  rssPages: number;
}

export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const pid = Number.parseInt(text, 10);
  const fields = text
    .slice(close + 2)
    .trim()
    .split(" ");
  // fields[0] is field 3 (state); field N is fields[N - 3].
  if (fields.length < 22 || !Number.isInteger(pid)) return null;
  return {
    pid,
    state: fields[0]!,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: fields[19]!,
    rssPages: Number(fields[21]),
  };
}
