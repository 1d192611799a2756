/**
 * atrace marks: the text user space writes to ftrace's trace_marker (Android's ATRACE_*,
 * Linux apps using the same convention), recorded by Perfetto as ftrace `print` events.
 * The forms Trace Processor's systrace parser reads:
 *   B|<tgid>|<name>            slice begins on the writing thread
 *   E[|<tgid>]                 the thread's innermost slice ends
 *   C|<tgid>|<name>|<value>    counter (an optional trailing |<category> is ignored)
 *   I|<tgid>|<name>            instant on the thread
 *   S|F|G|H|N|T|U …            async slices and tracks: recognised, not imported
 * Anything else (kernel printk text, `trace_event_clock_sync:` lines) is not a mark.
 */
export type AtraceMark =
  | { kind: "begin"; tgid: number | null; name: string }
  | { kind: "end"; tgid: number | null }
  | { kind: "counter"; tgid: number | null; name: string; value: number }
  | { kind: "instant"; tgid: number | null; name: string }
  | { kind: "async" };

const decoder = new TextDecoder("utf-8");
const ASYNC_PHASES = new Set(["S", "F", "G", "H", "N", "T", "U"]);

function tgidOf(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text.trim())) return null;
  return Number(text.trim());
}

/** The mark a print buffer carries, or null when it is not one. */
export function parseAtrace(buf: Uint8Array): AtraceMark | null {
  let text = decoder.decode(buf);
  // The kernel keeps the writer's trailing newline (and some writers add a NUL).
  text = text.replace(/[\n\0]+$/, "");
  if (text.length === 0) return null;
  const phase = text[0]!;
  if (text.length > 1 && text[1] !== "|") return null;
  if (phase === "E") return { kind: "end", tgid: tgidOf(text.split("|", 3)[1]) };
  if (ASYNC_PHASES.has(phase)) return { kind: "async" };
  if (phase !== "B" && phase !== "C" && phase !== "I") return null;
  const second = text.indexOf("|", 2);
  if (second < 0) return null;
  const tgid = tgidOf(text.slice(2, second));
  const rest = text.slice(second + 1);
  if (phase === "B") return { kind: "begin", tgid, name: rest };
  if (phase === "I") return { kind: "instant", tgid, name: rest };
  // C|tgid|name|value[|category], split on '|' as Trace Processor does.
  const [name, valueText] = rest.split("|", 2);
  const value = Number(valueText);
  if (valueText === undefined || valueText.trim() === "" || !Number.isFinite(value)) return null;
  return { kind: "counter", tgid, name: name!, value };
}
