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
}
