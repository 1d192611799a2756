/**
 * Where the Perfetto importer's helpers (atrace marks, counters) put the events they
 * derive: the import's event spool, with names interned in its string table.
 */
import type { ByteBuf } from "../common/json-bytes.ts";

export interface PerfettoEventSink {
  intern(value: string): number;
  /**
   * One event of track `track` at `ns` (primary clock); args as JSON text, as JSON bytes in a
   * ByteBuf (copied before this returns), or null.
   */
  spoolEvent(
    track: number,
    ns: number,
    kind: number,
    name: number,
    ph: string,
    args: string | ByteBuf | null,
  ): void;
  /**
   * A counter reading of track `track` at `ns` with nothing but its value, named by string id
   * `name`, kept as a trace_counters row; false where readings are kept as events instead.
   */
  counterReading(track: number, ns: number, name: number, value: number): boolean;
}
