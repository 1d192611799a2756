/**
 * What readers count as a generation's trace events: since Perfetto counter readings have their
 * own table (trace_counters), both tables hold them.
 */
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
