/**
 * Where the Perfetto importer's helpers (atrace marks, counters) put the events they
 * derive: the import's event spool, with names interned in its string table.
 */
export interface PerfettoEventSink {
  intern(value: string): number;
  /** One event of track `track` at `ns` (primary clock); args as JSON text or null. */
  spoolEvent(
    track: number,
    ns: number,
    kind: number,
    name: number,
    ph: string,
    args: string | null,
  ): void;
}
