/**
 * A code location as Valgrind's tools print it (massif's trees, DHAT's frame table):
 * `0x1091DF: churn (prog.c:5)`, `0x4005A3: main (in /bin/prog)`, `0x...: ???`, and
 * dhat-rs's `0x...: path::to::fn (file.rs:226:9)`. Frames are kept per function (name,
 * file, module), without the call site's line, so one function is one frame as in the
 * other native formats; an address Valgrind could not name is an unsymbolized frame.
 */
import type { FrameRecord } from "./frame-registry.ts";
import { languageOf } from "./source-language.ts";

/** `[^]` rather than `.`: a name may hold a CR or a line separator, which `.` does not match. */
const LOCATION =
  /^(?:0x[0-9a-fA-F]+:\s*)?([^]*?)(?:\s+\((?:in\s+([^]+)|([^]+?):(\d+)(?::\d+)?)\))?$/;

export function valgrindFrame(text: string): { key: string; record: FrameRecord } {
  const m = LOCATION.exec(text.trim())!;
  const name = m[1]!.trim();
  const module = m[2]?.trim() ?? null;
  const file = m[3]?.trim() ?? null;
  const unnamed = name === "" || name === "???";
  const fn = unnamed ? (/^0x[0-9a-fA-F]+/.exec(text.trim())?.[0] ?? "???") : name;
  const record: FrameRecord = {
    language: languageOf(file ?? module),
    function: fn,
    module,
    file,
    line: null,
    column: null,
    symbolization: unnamed ? "absent" : "complete",
  };
  return { key: JSON.stringify(["valgrind", fn, module, file]), record };
}
