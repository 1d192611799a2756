/**
 * atrace marks: the text user space writes to ftrace's trace_marker (Android's ATRACE_*,
 * Linux apps using the same convention), recorded by Perfetto as ftrace `print` events.
 * The forms Trace Processor's systrace parser reads:
 *   B|<tgid>|<name>                       slice begins on the writing thread
 *   E[|<tgid>]                            the thread's innermost slice ends
 *   C|<tgid>|<name>|<value>               counter (an optional trailing |<category> is ignored)
 *   I|<tgid>|<name>                       instant on the thread
 *   S|<tgid>|<name>|<cookie>              async slice begins in the process
 *   F|<tgid>|<name>|<cookie>              … and ends (matched by name and cookie)
 *   G|<tgid>|<track>|<name>|<cookie>      async slice begins on a named process track
 *   H|<tgid>|<track>[|<name>]|<cookie>    … and ends (matched by track and cookie)
 *   N|<tgid>|<track>|<name>               instant on a named process track
 * Anything else (kernel printk text, `trace_event_clock_sync:` lines) is not a mark.
 */
export type AtraceMark =
  | { kind: "begin"; tgid: number; name: string }
  | { kind: "end"; tgid: number | null }
  | { kind: "counter"; tgid: number; name: string; value: number }
  | { kind: "instant"; tgid: number; name: string }
  /** S/G: `track` is the named track (G) or null (S: the slice's own name groups it). */
  | { kind: "async-begin"; tgid: number; track: string | null; name: string; cookie: string }
  /** F/H: ends the slice of the same track (or name, for F) and cookie. */
  | { kind: "async-end"; tgid: number; track: string | null; name: string | null; cookie: string }
  | { kind: "track-instant"; tgid: number; track: string; name: string };

const decoder = new TextDecoder("utf-8");
const UINT32 = /^\d+$/;
const INT64 = /^-?\d+$/;

/** A cookie as a canonical integer string ("007" and "7" are one cookie), or null. */
function cookieOf(field: string | undefined): string | null {
  return field !== undefined && INT64.test(field) ? BigInt(field).toString() : null;
}

/**
 * The mark a print buffer carries, or null when it is not one. Fields are read as Trace
 * Processor's ParseSystraceTracePoint reads them: the phase is the first character of the
 * first '|'-separated field; every form but E needs a numeric tgid; a B's name is the rest
 * of the line ("[empty slice name]" when empty); a C's value and every cookie are
 * integers; names and track names must not be empty; any E ends the thread's innermost
 * slice.
 */
export function parseAtrace(buf: Uint8Array): AtraceMark | null {
  // The kernel keeps the writer's trailing newline (and some writers add a NUL).
  const text = decoder.decode(buf).replace(/[\n\0]+$/, "");
  const fields = text.split("|");
  const phase = fields[0]!.charAt(0);
  if (phase === "") return null;
  const tgid = fields.length > 1 && UINT32.test(fields[1]!) ? Number(fields[1]) : null;
  if (phase === "E") return { kind: "end", tgid };
  if (tgid === null) return null;
  const [f2, f3, f4] = [fields[2], fields[3], fields[4]];
  switch (phase) {
    case "B": {
      const name = fields.slice(2).join("|");
      return { kind: "begin", tgid, name: name === "" ? "[empty slice name]" : name };
    }
    case "I":
      return f2 ? { kind: "instant", tgid, name: f2 } : null;
    case "C":
      return f2 && f3 !== undefined && INT64.test(f3)
        ? { kind: "counter", tgid, name: f2, value: Number(f3) }
        : null;
    case "S":
    case "F": {
      const cookie = cookieOf(f3);
      if (!f2 || cookie === null) return null;
      return phase === "S"
        ? { kind: "async-begin", tgid, track: null, name: f2, cookie }
        : { kind: "async-end", tgid, track: null, name: f2, cookie };
    }
    case "G": {
      const cookie = cookieOf(f4);
      return f2 && f3 && cookie !== null
        ? { kind: "async-begin", tgid, track: f2, name: f3, cookie }
        : null;
    }
    case "H": {
      // The name between track and cookie is optional: the cookie is the last of the two.
      const cookie = cookieOf(f4 ? f4 : f3);
      return f2 && cookie !== null
        ? { kind: "async-end", tgid, track: f2, name: null, cookie }
        : null;
    }
    case "N":
      return f2 && f3 ? { kind: "track-instant", tgid, track: f2, name: f3 } : null;
    default:
      return null;
  }
}
