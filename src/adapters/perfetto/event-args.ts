/**
 * A track event's args: the JSON of its debug annotations (and a counter's value), written as
 * bytes for the common shapes (annotation-bytes.ts) or as text (debug-annotations.ts), and stored
 * in the spool's args, cut at the per-event limit.
 */
import type { ByteBuf } from "../common/json-bytes.ts";
import { FLAG_ARGS_TRUNCATED } from "../trace-events/event-flags.ts";
import type { TraceColumns } from "../trace-events/trace-columns.ts";
import { writeAnnotationsJson } from "./annotation-bytes.ts";
import { annotationsJson } from "./debug-annotations.ts";
import type { PacketAnnotations } from "./packet-annotations.ts";
import type { SequenceState } from "./sequence-state.ts";

const encoder = new TextEncoder();
const VALUE_OPEN = encoder.encode('{"value":');

/**
 * A counter reading's args, `{"value":N}` as JSON.stringify writes it (a number as its shortest
 * round-trip text, a non-finite one as null), written into `buf` (returned). A real Chrome trace
 * has a reading on every slice begin and end: an object, JSON.stringify and a TextEncoder each
 * were ~0.9 s of an 8.4 s parser-thread profile (the Chromium startup trace repeated to 40 MB).
 * Readers write the same text for readings stored in trace_counters (domain/trace-event-rows.ts).
 */
export function counterArgs(value: number, buf: ByteBuf): ByteBuf {
  buf.used = 0;
  buf.raw(VALUE_OPEN);
  if (Number.isSafeInteger(value)) buf.safeInteger(value);
  else buf.ascii(Number.isFinite(value) ? String(value) : "null");
  buf.byte(0x7d); // }
  return buf;
}

/**
 * The args JSON as text, or as the bytes written into `buf` (then `buf` itself); null: none.
 * `counterValue`: a counter event's reading, which comes first in its args.
 */
export function eventArgs(
  annotations: PacketAnnotations,
  state: SequenceState,
  counterValue: number | undefined,
  buf: ByteBuf,
): string | ByteBuf | null {
  buf.used = 0;
  if (counterValue !== undefined) {
    if (annotations.length === 0) return counterArgs(counterValue, buf);
    return annotationsJson(annotations.views(), state, { value: counterValue });
  }
  if (annotations.length === 0) return null;
  if (writeAnnotationsJson(annotations, state, buf)) return buf;
  return annotationsJson(annotations.views(), state);
}

/**
 * Stores event `i`'s args in `cols`, cut at `maxBytes` on a character boundary and flagged so;
 * returns whether they were cut.
 */
export function storeEventArgs(
  cols: TraceColumns,
  i: number,
  args: string | ByteBuf,
  maxBytes: number,
): boolean {
  const bytes = typeof args === "string" ? encoder.encode(args) : args.data;
  let length = typeof args === "string" ? bytes.length : args.used;
  const cut = length > maxBytes;
  if (cut) {
    length = maxBytes;
    while (length > 0 && (bytes[length]! & 0xc0) === 0x80) length--;
    cols.flags.array[i]! |= FLAG_ARGS_TRUNCATED;
  }
  cols.argsRef.array[i] = cols.args.addRange(bytes, 0, length);
  return cut;
}
