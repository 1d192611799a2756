/**
 * Progress for long tools: one monotonic stream of fixed work units (0..100) sent as
 * `notifications/progress` when the request carried `_meta.progressToken`. Copying maps
 * onto 0..50 by bytes; extraction maps onto 60..99 by the stored bytes the parse worker
 * has consumed (its start is 60), and completion is 100.
 *
 * The answer of a call is written only after its notifications have been handed to the
 * transport (`settled`), so on the wire the terminal notification always precedes the
 * response. A client may still drop a notification that reaches it in the same read as
 * the response (TypeScript SDK, modelcontextprotocol/typescript-sdk#2580): the response
 * itself is the authoritative completion.
 */
export const PROGRESS_TOTAL = 100;
const COPY_SHARE = 50;
const EXTRACT_START = 60;
const EXTRACT_SHARE = 39;

export interface ProgressSink {
  progressToken?: string | number;
  send(notification: {
    method: "notifications/progress";
    params: Record<string, unknown>;
  }): Promise<void>;
}

export interface ProgressReporter {
  report(phase: string, done: number, total: number): void;
  /** Resolves once every notification reported so far has been handed to the transport. */
  settled(): Promise<void>;
}

export function progressReporter(sink: ProgressSink): ProgressReporter {
  const token = sink.progressToken;
  if (token === undefined) return { report: () => {}, settled: () => Promise.resolve() };
  let last = -1;
  let sent: Promise<void> = Promise.resolve();
  return {
    report(phase, done, total) {
      const value = unitsOf(phase, done, total);
      if (value === null || value <= last) return;
      last = value;
      // A client that went away must not fail the import: send errors are swallowed.
      const sending = sink
        .send({
          method: "notifications/progress",
          params: { progressToken: token, progress: value, total: PROGRESS_TOTAL, message: phase },
        })
        .catch(() => {});
      sent = sent.then(() => sending);
    },
    settled: () => sent,
  };
}

function unitsOf(phase: string, done: number, total: number): number | null {
  switch (phase) {
    case "copying":
      return total > 0 ? Math.floor((COPY_SHARE * Math.min(done, total)) / total) : 0;
    case "extracting":
      return total > 1
        ? EXTRACT_START + Math.floor((EXTRACT_SHARE * Math.min(done, total)) / total)
        : EXTRACT_START;
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
