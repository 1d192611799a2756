/**
 * Recognising a callgrind file from its head: the `# callgrind format` first line that
 * the format recommends, or (pprof's and Xdebug's output start without it) an `events:`
 * header line followed by an `fn=` line before anything that is not a callgrind line.
 */
import type { DetectInput } from "../adapter.ts";

const EVENTS = /^events:[ \t]*\S/m;
const FUNCTION = /^c?fn=\S/m;

export function detectCallgrind({ head }: DetectInput): number {
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  if (/^# callgrind format\r?\n/.test(text)) return 0.95;
  const events = EVENTS.exec(text);
  if (events === null || !FUNCTION.test(text.slice(events.index))) return 0;
  // Everything before the events line must be header lines (`key: value`), comments or blank.
  const before = text.slice(0, events.index).split("\n");
  return before.every((l) => /^\s*$|^#|^[A-Za-z][\w -]*:/.test(l)) ? 0.9 : 0;
}
