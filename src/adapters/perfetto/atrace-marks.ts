/**
 * atrace marks: the text user space writes to ftrace's trace_marker (Android's ATRACE_*,
 * Linux apps using the same convention), recorded by Perfetto as ftrace `print` events.
 * The forms Trace Processor's systrace parser reads:
 *   B|<tgid>|<name>            slice begins on the writing thread
 *   E[|<tgid>]                 the thread's innermost slice ends
 *   C|<tgid>|<name>|<value>    counter (an optional trailing |<category> is ignored)
 *   I|<tgid>|<name>            instant on the thread
 *   S|F|G|H|N|U …              async slices and tracks: recognised, not imported
 * Anything else (kernel printk text, `trace_event_clock_sync:` lines) is not a mark.
 */
export type AtraceMark =
  | { kind: "begin"; tgid: number; name: string }
  | { kind: "end"; tgid: number | null }
  | { kind: "counter"; tgid: number; name: string; value: number }
  | { kind: "instant"; tgid: number; name: string }
  | { kind: "async" };

const decoder = new TextDecoder("utf-8");
const ASYNC_PHASES = new Set(["S", "F", "G", "H", "N", "U"]);
const UINT32 = /^\d+$/;
const INT64 = /^-?\d+$/;

/**
 * The mark a print buffer carries, or null when it is not one. Fields are read as Trace
 * Processor's ParseSystraceTracePoint reads them: the phase is the first character of the
 * first '|'-separated field, B/C/I need a numeric tgid, a B's name is the rest of the line
 * ("[empty slice name]" when empty), a C's value is an integer (an optional category after
 * it is ignored), and any E ends the thread's innermost slice.
 */
export function parseAtrace(buf: Uint8Array): AtraceMark | null {
  // The kernel keeps the writer's trailing newline (and some writers add a NUL).
  const text = decoder.decode(buf).replace(/[\n\0]+$/, "");
  const fields = text.split("|");
  const phase = fields[0]!.charAt(0);
  if (phase === "") return null;
  const tgid = fields.length > 1 && UINT32.test(fields[1]!) ? Number(fields[1]) : null;
  if (phase === "E") return { kind: "end", tgid };
  if (ASYNC_PHASES.has(phase)) return { kind: "async" };
  if (tgid === null) return null;
  if (phase === "B") {
    const name = fields.slice(2).join("|");
    return { kind: "begin", tgid, name: name === "" ? "[empty slice name]" : name };
  }
  if (phase === "I") return fields[2] ? { kind: "instant", tgid, name: fields[2] } : null;
  if (phase === "C") {
    const [name, value] = [fields[2], fields[3]];
    return name && value !== undefined && INT64.test(value) ? { kind: "counter", tgid, name, value: Number(value) } : null;
  }
  return null;
}
