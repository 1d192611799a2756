/**
 * Reference: pairs the B and E events of one whole, in-memory track into slices with a
 * BeginEndMatcher (see there for the rules). Events are taken in timestamp order (input
 * order on ties), since JSON traces interleave threads and are not always sorted. The
 * matched E is folded into its B: the B row carries the slice's duration.
 */
import { FLAG_UNMATCHED_BEGIN } from "../../../src/adapters/trace-events/event-flags.ts";
import { threadSpanNs } from "../../../src/adapters/common/time-ns.ts";
import { sortInPlaceUnlessSorted } from "./sorted-order.ts";
import {
  BeginEndMatcher,
  type BeginEndCounts,
} from "../../../src/adapters/trace-events/begin-end-matcher.ts";
import {
  KIND_BEGIN,
  KIND_END,
  KIND_SKIPPED,
} from "../../../src/adapters/trace-events/event-kinds.ts";
import type { ScannedTrace, TraceEventObject } from "./event-scan.ts";

export type { BeginEndCounts } from "../../../src/adapters/trace-events/begin-end-matcher.ts";

/** The `name` field of event i (any JSON value; only strings name a slice). */
export type EventName = (i: number) => unknown;

export function matchBeginEnd(
  scan: ScannedTrace,
  trackSlices: readonly number[],
  trackEndNs: number,
  counts: BeginEndCounts,
  nameOf: EventName = (i) => (scan.events[i] as TraceEventObject).name,
): void {
  const { kind, startNs, durNs, threadNs, flags } = scan;
  const pairs: number[] = [];
  for (const i of trackSlices) if (kind[i] === KIND_BEGIN || kind[i] === KIND_END) pairs.push(i);
  if (pairs.length === 0) return;
  const before = (a: number, b: number): number => startNs[a]! - startNs[b]! || a - b;
  sortInPlaceUnlessSorted(pairs, before);
  const matcher = new BeginEndMatcher(counts, (begin, endNs, unmatched, endThreadNs) => {
    durNs[begin] = Math.max(0, endNs - startNs[begin]!);
    threadNs[begin] = unmatched ? Number.NaN : threadSpanNs(threadNs[begin]!, endThreadNs);
    if (unmatched) flags[begin]! |= FLAG_UNMATCHED_BEGIN;
  });
  for (const i of pairs) {
    if (kind[i] === KIND_BEGIN) {
      matcher.begin(i, nameOf(i));
      continue;
    }
    kind[i] = KIND_SKIPPED; // an E never becomes a row of its own
    matcher.end(startNs[i]!, nameOf(i), threadNs[i]!);
  }
  matcher.finish(trackEndNs);
}
