/**
 * Reference: nests the slices of one whole, in-memory track and measures them (`wall_time`), with
 * the rules of slice-nester.ts: the slices are put in nesting order (start, longer
 * first on equal starts, then input order) and pushed through a SliceNester.
 */
import { sortInPlaceUnlessSorted } from "./sorted-order.ts";
import { KIND_BEGIN, KIND_COMPLETE } from "../../../src/adapters/trace-events/event-kinds.ts";
import type { ScannedTrace } from "./event-scan.ts";
import type { SliceNester } from "../../../src/adapters/trace-events/slice-nester.ts";

export function nestTrackSlices(
  scan: ScannedTrace,
  trackSlices: readonly number[],
  track: number,
  nester: SliceNester,
): number {
  const { kind, startNs, durNs, frame, depth } = scan;
  const slices: number[] = [];
  for (const i of trackSlices)
    if (kind[i] === KIND_COMPLETE || kind[i] === KIND_BEGIN) slices.push(i);
  if (slices.length === 0) return 0;
  const before = (a: number, b: number): number =>
    startNs[a]! - startNs[b]! || durNs[b]! - durNs[a]! || a - b;
  sortInPlaceUnlessSorted(slices, before);
  nester.beginTrack(track);
  for (const slice of slices)
    depth[slice] = nester.push(frame[slice]!, startNs[slice]!, durNs[slice]!);
  nester.endTrack();
  return slices.length;
}
