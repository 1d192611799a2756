/**
 * One line of collapsed ("folded") stacks, as Brendan Gregg's stackcollapse-*.pl scripts,
 * py-spy `--format raw`, inferno and many profilers write it: frames root first joined by
 * `;`, a space, and the sample count. A frame may carry stackcollapse's annotation suffix
 * (`_[k]` kernel, `_[j]` JIT, `_[i]` inlined, `_[w]` waker stack of an off-CPU graph); with
 * `--pid`/`--tid` the first frame is the command with its `-pid` or `-pid/tid`.
 */
import type { FrameRecord } from "../common/frame-registry.ts";

export interface CollapsedLine {
  /** The frames' text, root first, joined by `;` (see `stackFrames`). */
  stack: string;
  count: number;
}

const COUNT = /\s+(\d+(?:\.\d+)?)\s*$/;
const PROCESS_FRAME = /^(.+)-(\d+)(?:\/(\d+))?$/;
const ANNOTATION = /_\[([kjiw])\]$/;

export type FrameAnnotation = "kernel" | "jit" | "inlined" | "waker" | null;

/** null when the line has no count or no frames. */
export function parseCollapsedLine(line: string): CollapsedLine | null {
  const m = COUNT.exec(line);
  if (!m) return null;
  const stack = line.slice(0, m.index).trim();
  if (stack === "") return null;
  const count = Number(m[1]);
  // Values are stored as int64 and summed: a count beyond 2^53 is not a count.
  if (!(count <= Number.MAX_SAFE_INTEGER)) return null;
  return { stack, count };
}

/** A line's frames, root first. */
export function stackFrames(stack: string): string[] {
  return stack.split(";");
}

/** The `comm-pid[/tid]` first frame of `--pid`/`--tid` output, or null. */
export function processFrame(
  frame: string,
): { comm: string; pid: string; tid: string | null } | null {
  const m = PROCESS_FRAME.exec(frame);
  return m ? { comm: m[1]!, pid: m[2]!, tid: m[3] ?? null } : null;
}

export function collapsedFrame(text: string): { record: FrameRecord; annotation: FrameAnnotation } {
  const trimmed = text.trim();
  const a = ANNOTATION.exec(trimmed);
  const annotation: FrameAnnotation = a
    ? ({ k: "kernel", j: "jit", i: "inlined", w: "waker" } as const)[a[1] as "k" | "j" | "i" | "w"]
    : null;
  const name = a ? trimmed.slice(0, a.index) : trimmed;
  const unknown = name === "" || name === "[unknown]";
  return {
    annotation,
    record: {
      language: annotation === "kernel" ? "kernel" : annotation === "jit" ? "jit" : "native",
      function: unknown ? "[unknown]" : name,
      module: null,
      file: null,
      line: null,
      column: null,
      symbolization: unknown ? "absent" : "complete",
    },
  };
}
