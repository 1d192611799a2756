/**
 * Recognising `perf script` text from its head: optional `#` header lines, then a sample
 * header line followed by a callchain frame, a blank line or the next sample header.
 * One header line alone is not enough (many text files start with "name 123 ..."), so
 * the line after it must be a frame, or the header must carry a time and an event.
 */
import type { DetectInput } from "../adapter.ts";
import { isFrameLine } from "./frame-line.ts";
import { parseSampleHeader } from "./sample-header.ts";

export function detectPerfScript({ head }: DetectInput): number {
  const lines = head.split("\n", 400);
  let i = 0;
  while (i < lines.length && (lines[i]!.trim() === "" || lines[i]!.startsWith("#"))) i++;
  const first = lines[i];
  if (first === undefined) return 0;
  const header = parseSampleHeader(first.replace(/\r$/, ""));
  if (header === null) return 0;
  const next = lines[i + 1]?.replace(/\r$/, "");
  if (next !== undefined && isFrameLine(next) && /^\s/.test(next)) return 0.9;
  // -G output: each line a sample with its frame; or the old unindented callchains.
  if (header.rest !== "" && isFrameLine(header.rest) && header.event !== null) return 0.85;
  if (next !== undefined && isFrameLine(next) && header.event !== null && /\(.*\)$/.test(next))
    return 0.8;
  if (
    header.seconds !== null &&
    header.event !== null &&
    (next === undefined || next.trim() === "")
  )
    return 0.7;
  return 0;
}
