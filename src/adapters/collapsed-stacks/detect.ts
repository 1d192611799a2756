/**
 * Recognising collapsed stacks from their head: after optional comment lines, lines of
 * `frames count` where at least one line has two frames (`a;b 3`) and most lines fit.
 * A UTF-16 file (byte order mark) is decoded as such first.
 */
import type { DetectInput } from "../adapter.ts";
import { parseCollapsedLine, stackFrames } from "./collapsed-line.ts";

function headText({ head, headBytes }: DetectInput): string {
  if (
    headBytes &&
    headBytes.length >= 2 &&
    ((headBytes[0] === 0xff && headBytes[1] === 0xfe) ||
      (headBytes[0] === 0xfe && headBytes[1] === 0xff))
  ) {
    return new TextDecoder(headBytes[0] === 0xff ? "utf-16le" : "utf-16be").decode(headBytes);
  }
  // Callers that pass only the UTF-8 decoded head: a UTF-16 BOM became two U+FFFD, ASCII kept its
  // NUL halves.
  if (head.startsWith("\ufffd\ufffd") && head.includes("\u0000"))
    return head.slice(2).replaceAll("\u0000", "");
  return head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
}

export function detectCollapsed(input: DetectInput): number {
  const lines = headText(input)
    .split("\n", 200)
    .slice(0, -1)
    .map((l) => l.replace(/\r$/, ""));
  // A head without a line break is one (possibly cut) line: judge it whole.
  if (lines.length === 0) lines.push(headText(input));
  let fit = 0;
  let misfit = 0;
  let nested = false;
  for (const line of lines) {
    const t = line.trim();
    if (t === "" || t.startsWith("#") || t.startsWith("//")) continue;
    const parsed = parseCollapsedLine(line);
    // JSON and XML open with `{`, `<`, `"` or an array (`[` then a value); a frame may start
    // with `[` though (perf's `[unknown]`, `[kernel.kallsyms]`), so only an array start is a
    // misfit.
    if (
      parsed === null ||
      /^[{<"]/.test(t) ||
      /^\[\s*($|[{["\d\]-])/.test(t) ||
      stackFrames(parsed.stack).some((f) => f.trim() === "")
    )
      misfit++;
    else {
      fit++;
      if (parsed.stack.includes(";")) nested = true;
    }
  }
  if (fit === 0 || !nested || misfit > fit / 4) return 0;
  return 0.8;
}
