/**
 * One frame of a DTrace `stack()`/`ustack()` aggregation: `module`function+0xoffset`,
 * `module`0xaddress` (no symbol) or a bare `0xaddress`. The offset is dropped so one
 * function is one frame (as stackcollapse.pl does); the module is kept.
 */
import type { FrameRecord } from "../common/frame-registry.ts";

/** `[^]` rather than `.`: a frame may hold a CR or a line separator, which `.` does not match. */
const FRAME = /^(?:([^`]*)`)?([^]*?)(?:\+0x[0-9a-fA-F]+)?$/;
const ADDRESS = /^0x[0-9a-fA-F]+$/;

export function dtraceFrame(text: string): { key: string; record: FrameRecord } {
  const m = FRAME.exec(text)!;
  const module = m[1] === undefined || m[1] === "" ? null : m[1];
  const name = m[2]!;
  const unnamed = name === "" || ADDRESS.test(name);
  const record: FrameRecord = {
    language: "native",
    function: name === "" ? "[unknown]" : name,
    module,
    file: null,
    line: null,
    column: null,
    symbolization: unnamed ? "absent" : "complete",
  };
  return { key: JSON.stringify(["dtrace", module, record.function]), record };
}
