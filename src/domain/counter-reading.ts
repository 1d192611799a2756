/**
 * A counter reading's args as trace_events rows carry them: `{"value":N}`, N as JSON.stringify
 * writes a number (its shortest round-trip text; a non-finite one as null). Readings stored in
 * `trace_counters` keep only the number; readers write this text back from it, and the Perfetto
 * importer writes the same bytes for readings kept as events (adapters/perfetto/event-args.ts).
 */
export function counterArgsJson(value: number): string {
  return `{"value":${Number.isFinite(value) ? String(value) : "null"}}`;
}

/**
 * The rows readers see as a generation's trace_events: its events and its counter readings
 * (undefined: it stores neither table).
 */
export function traceEventRows(tables: Readonly<Record<string, number>>): number | undefined {
  const events = tables.trace_events;
  const readings = tables.trace_counters;
  if (events === undefined && readings === undefined) return undefined;
  return (events ?? 0) + (readings ?? 0);
}
