/**
 * V8 call frames → frames. V8 stores lineNumber/columnNumber 0-based (-1 when unknown);
 * frames store them 1-based, the way editors and stack traces show them.
 */
import type { FrameRecord, FrameRegistry, Symbolization } from "../common/frame-registry.ts";

/** V8's pseudo-frames: not JavaScript functions but states of the VM. */
const V8_PSEUDO_FRAMES = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"]);

export const V8_ROOT_FUNCTION = "(root)";

export interface V8CallFrame {
  functionName?: unknown;
  url?: unknown;
  lineNumber?: unknown;
  columnNumber?: unknown;
}

function oneBased(position: unknown): number | null {
  return typeof position === "number" &&
    Number.isInteger(position) &&
    position >= 0 &&
    position < 2 ** 31 - 1
    ? position + 1
    : null;
}

/** Frame index of a call frame; also returns whether it is V8's `(root)` pseudo-frame. */
export function internCallFrame(frames: FrameRegistry, callFrame: V8CallFrame): number {
  const rawName = typeof callFrame.functionName === "string" ? callFrame.functionName : "";
  const file = typeof callFrame.url === "string" && callFrame.url.length > 0 ? callFrame.url : null;
  const line = oneBased(callFrame.lineNumber);
  const column = oneBased(callFrame.columnNumber);
  const key = JSON.stringify(["v8", rawName, file, line, column]);
  return frames.intern(key, () => callFrameRecord(rawName, file, line, column));
}

function callFrameRecord(
  rawName: string,
  file: string | null,
  line: number | null,
  column: number | null,
): FrameRecord {
  const pseudo = file === null && V8_PSEUDO_FRAMES.has(rawName);
  let symbolization: Symbolization = "complete";
  if (rawName.length === 0) symbolization = file === null ? "absent" : "partial";
  return {
    language: pseudo ? "v8" : "javascript",
    function: rawName.length > 0 ? rawName : "(anonymous)",
    file,
    module: null,
    line,
    column,
    symbolization,
  };
}
