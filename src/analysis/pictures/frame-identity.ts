/**
 * How frames group into the boxes of a picture and the rows of a diff. The same function
 * imported from two formats carries different frame ids (they hash format-specific
 * details), so pictures and diffs key frames by what a reader means by "the same
 * function": its name and file. `line` keeps the line too (pprof records the sampled
 * line; V8 the function's first line, so line keys rarely match across formats).
 */
import type { FrameInfo } from "../hotspots.ts";

import type { Granularity } from "../../domain/granularity.ts";

export { GRANULARITIES, type Granularity } from "../../domain/granularity.ts";

/** What colours a box: kernel, native, JavaScript, Python, Go, trace slices or unknown. */
export type FrameKind = "kernel" | "native" | "javascript" | "python" | "go" | "trace" | "other";

export interface FrameLabel {
  key: string;
  name: string;
  kind: FrameKind;
}

export function frameLabel(
  frameId: string,
  frame: FrameInfo | undefined,
  granularity: Granularity,
): FrameLabel {
  if (!frame) return { key: `?${frameId}`, name: `(unknown frame ${frameId})`, kind: "other" };
  const fn = frame.function || "(anonymous)";
  const file = frame.file ?? frame.module ?? "";
  const kind = kindOf(frame);
  if (granularity === "file") {
    const name = file || fn;
    return { key: `f\u0000${name}`, name, kind };
  }
  if (granularity === "line") {
    const at = file ? ` ${file}${frame.line !== null ? `:${frame.line}` : ""}` : "";
    return { key: `l\u0000${fn}\u0000${file}\u0000${frame.line ?? ""}`, name: `${fn}${at}`, kind };
  }
  return { key: `n\u0000${fn}\u0000${file}`, name: file ? `${fn} ${shortFile(file)}` : fn, kind };
}

function kindOf(frame: FrameInfo): FrameKind {
  const module = frame.module ?? "";
  if (
    module.includes("kernel") ||
    module === "[kernel.kallsyms]" ||
    frame.function.endsWith("_[k]")
  )
    return "kernel";
  switch (frame.language) {
    case "javascript":
    case "python":
    case "go":
    case "native":
    case "trace":
      return frame.language;
    default:
      return "other";
  }
}

/**
 * The last two path segments: enough to tell files apart in a box, the full path is in the tooltip.
 */
function shortFile(file: string): string {
  const parts = file.split(/[\\/]/).filter(Boolean);
  return parts.length <= 2 ? file : `…/${parts.slice(-2).join("/")}`;
}

/** Anonymous functions are told apart only by where they are, so they never merge by name. */
const ANONYMOUS = new Set(["", "(anonymous)", "<anonymous>", "(anonymous function)"]);

/**
 * The row a frame belongs to in hotspots and drill-downs: the frame itself at `line`
 * granularity (one row per stored frame), else its picture key, except that anonymous
 * functions stay apart per frame.
 */
export function frameGroupKey(
  frameId: string,
  frame: FrameInfo | undefined,
  granularity: Granularity,
): string {
  if (
    granularity === "line" ||
    (granularity === "function" && ANONYMOUS.has(frame?.function ?? ""))
  )
    return frameId;
  return frameLabel(frameId, frame, granularity).key;
}
