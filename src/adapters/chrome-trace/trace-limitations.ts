/** The limitations a trace import reports, from the counters its passes kept. */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { BeginEndCounts } from "../trace-events/begin-end-matcher.ts";
import {
  embeddedProfileLimitations,
  type EmbeddedProfileStats,
} from "../v8-sample-tree/embedded-profiles.ts";
import type { ScanCounts } from "../trace-events/event-kinds.ts";

export interface TraceFacts {
  scan: ScanCounts;
  beginEnd: BeginEndCounts;
  profiles: EmbeddedProfileStats;
  slices: number;
  truncatedArgs: number;
  repairedTruncatedArray: boolean;
  ignoredStackSamples: number;
}

export function traceLimitations(facts: TraceFacts): Limitation[] {
  const out: Limitation[] = [];
  const add = (code: string, count: number, message: string): void => {
    if (count > 0) out.push({ code, message, count });
  };
  if (facts.repairedTruncatedArray)
    out.push({
      code: "truncated_array_repaired",
      message:
        "The event array was not closed (the format allows it); it was closed before parsing",
    });
  add(
    "unmatched_begin",
    facts.beginEnd.unmatchedBegin,
    "B events without a matching E; closed at the thread's last timestamp",
  );
  add(
    "unmatched_end",
    facts.beginEnd.unmatchedEnd,
    "E events without an open B of that name; dropped",
  );
  add(
    "missing_dur",
    facts.scan.missingDur,
    "X events without dur (still open when tracing stopped); closed at the thread's last timestamp",
  );
  add(
    "clamped_events",
    facts.scan.clamped,
    "Events with a negative or non-numeric dur; clamped to 0",
  );
  add(
    "args_truncated",
    facts.truncatedArgs,
    "Event args longer than the per-event limit; truncated",
  );
  add("missing_ts", facts.scan.missingTs, "Events without a numeric ts; dropped");
  add(
    "malformed_events",
    facts.scan.malformed,
    "Entries that are not event objects with a string ph; dropped",
  );
  add(
    "unknown_phases",
    facts.scan.unknownPhases,
    "Events with a phase the Trace Event Format does not define; kept without a duration",
  );
  if (facts.slices === 0)
    out.push({
      code: "no_slices",
      message: "The trace has no duration events (X, B/E), so there is no wall time to attribute",
    });
  out.push(...embeddedProfileLimitations(facts.profiles));
  add(
    "stack_samples_not_imported",
    facts.ignoredStackSamples,
    "Top-level `samples`/`stackFrames` sampling data is not imported",
  );
  return out;
}
