/**
 * Progress for long tools: one monotonic stream of fixed work units (0..100) sent as
 * `notifications/progress` when the request carried `_meta.progressToken`. Copying maps
 * onto 0..50 by bytes; extraction has no known length, so it reports its start (60) and
 * completion (100) only.
 */
export const PROGRESS_TOTAL = 100;
const COPY_SHARE = 50;
const EXTRACT_START = 60;

export interface ProgressSink {
  progressToken?: string | number;
  send(notification: { method: "notifications/progress"; params: Record<string, unknown> }): Promise<void>;
}

export function progressReporter(sink: ProgressSink): (phase: string, done: number, total: number) => void {
  const token = sink.progressToken;
  if (token === undefined) return () => {};
  let last = -1;
  return (phase, done, total) => {
    const value = unitsOf(phase, done, total);
    if (value === null || value <= last) return;
    last = value;
    // Fire and forget: a client that went away must not fail the import.
    sink.send({ method: "notifications/progress", params: { progressToken: token, progress: value, total: PROGRESS_TOTAL, message: phase } }).catch(() => {});
  };
}

function unitsOf(phase: string, done: number, total: number): number | null {
  switch (phase) {
    case "copying":
      return total > 0 ? Math.floor((COPY_SHARE * Math.min(done, total)) / total) : 0;
    case "extracting":
      return EXTRACT_START;
    // Capture phases (execute_capture_plan): fixed units, no percentage inside a phase.
    case "planning":
      return 2;
    case "capturing":
      return 10;
    case "registering":
      return 55;
    case "validating":
      return 90;
    case "completed":
      return PROGRESS_TOTAL;
    default:
      return null;
  }
}
