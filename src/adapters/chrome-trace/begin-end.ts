/**
 * Pairs B and E events of one track into slices. Events are taken in timestamp order
 * (input order on ties), since JSON traces interleave threads and are not always
 * sorted. An E closes the innermost open B of the same name (an E without a name
 * closes the innermost B); B events it skips over are closed with it and flagged
 * `unmatched_begin`. An E that matches no open B is dropped. B events still open at the
 * end are closed at the track's last timestamp and flagged `unmatched_begin`.
 * The matched E is folded into its B: the B row carries the slice's duration.
 */
import { FLAG_UNMATCHED_BEGIN } from "./event-flags.ts";
import { sortInPlaceUnlessSorted } from "../common/sorted-order.ts";
import { KIND_BEGIN, KIND_END, KIND_SKIPPED, type ScannedTrace, type TraceEventObject } from "./event-scan.ts";

export interface BeginEndCounts {
  unmatchedBegin: number;
  unmatchedEnd: number;
}

/** The `name` field of event i (any JSON value; only strings name a slice). */
export type EventName = (i: number) => unknown;

export function matchBeginEnd(
  scan: ScannedTrace,
  trackSlices: readonly number[],
  trackEndNs: number,
  counts: BeginEndCounts,
  nameOf: EventName = (i) => (scan.events[i] as TraceEventObject).name,
): void {
  const { kind, startNs, durNs, flags } = scan;
  const pairs: number[] = [];
  for (const i of trackSlices) if (kind[i] === KIND_BEGIN || kind[i] === KIND_END) pairs.push(i);
  if (pairs.length === 0) return;
  const before = (a: number, b: number): number => startNs[a]! - startNs[b]! || a - b;
  sortInPlaceUnlessSorted(pairs, before);

  const open: number[] = [];
  for (const i of pairs) {
    if (kind[i] === KIND_BEGIN) {
      open.push(i);
      continue;
    }
    kind[i] = KIND_SKIPPED; // an E never becomes a row of its own
    const at = innermostMatch(open, nameOf, nameOf(i));
    if (at < 0) {
      counts.unmatchedEnd++;
      continue;
    }
    while (open.length > at + 1) {
      const skipped = open.pop()!;
      durNs[skipped] = startNs[i]! - startNs[skipped]!;
      flags[skipped]! |= FLAG_UNMATCHED_BEGIN;
      counts.unmatchedBegin++;
    }
    const begin = open.pop()!;
    durNs[begin] = startNs[i]! - startNs[begin]!;
  }
  for (const begin of open) {
    durNs[begin] = Math.max(0, trackEndNs - startNs[begin]!);
    flags[begin]! |= FLAG_UNMATCHED_BEGIN;
    counts.unmatchedBegin++;
  }
}

function innermostMatch(open: readonly number[], nameOf: EventName, endName: unknown): number {
  if (open.length === 0) return -1;
  if (typeof endName !== "string" || endName.length === 0) return open.length - 1;
  for (let k = open.length - 1; k >= 0; k--) {
    if (nameOf(open[k]!) === endName) return k;
  }
  // A nameless B can only be closed by position.
  return typeof nameOf(open[open.length - 1]!) === "string" ? -1 : open.length - 1;
}
