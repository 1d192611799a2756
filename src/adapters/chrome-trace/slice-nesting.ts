/**
 * Nests the slices of one track and measures them (`wall_time`).
 *
 * Slices are ordered by start, longer first on equal starts, then input order, and
 * swept with a stack: a slice is a child of the innermost open slice that ends after it
 * starts. Self time is the slice's duration minus the time its direct children cover
 * inside it. A child's "cover" is its whole subtree's span: a grandchild can outlast its
 * parent (improperly nested slices, or an open-ended slice closed at the track's end),
 * and that stretch must not also count as the grandparent's self time. So self times on
 * a track never add up to more than the track's busy time, and for properly nested
 * slices this is exactly duration minus the children's durations. Inclusive time is the
 * time covered by the frame's slices on the track: a slice nested in another slice of
 * the same frame (recursion) adds nothing, or only what it covers beyond it. Both
 * sample counts are the number of slices. Call edges count child slices and sum their
 * durations. Stacks are recorded for leaf slices (those without children): their
 * duration is then also their self time.
 */
import type { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { sortInPlaceUnlessSorted } from "../common/sorted-order.ts";
import { ROOT_STACK, type StackTrie } from "../common/stack-trie.ts";
import { KIND_BEGIN, KIND_COMPLETE, type ScannedTrace } from "./event-scan.ts";

/** Per-frame scratch reused across tracks (sized to the frame count). */
export interface NestingScratch {
  /** Per frame: end of the time its slices on this track cover so far (-Infinity: none yet). */
  frameCoverEnd: Float64Array;
}

export function nestingScratch(frameCount: number): NestingScratch {
  return { frameCoverEnd: new Float64Array(frameCount).fill(Number.NEGATIVE_INFINITY) };
}

export function nestTrackSlices(
  scan: ScannedTrace,
  trackSlices: readonly number[],
  track: number,
  wall: MeasureAccumulator,
  stacks: StackTrie,
  scratch: NestingScratch,
): number {
  const { kind, startNs, durNs, frame, depth } = scan;
  const slices: number[] = [];
  for (const i of trackSlices) if (kind[i] === KIND_COMPLETE || kind[i] === KIND_BEGIN) slices.push(i);
  if (slices.length === 0) return 0;
  const before = (a: number, b: number): number => startNs[a]! - startNs[b]! || durNs[b]! - durNs[a]! || a - b;
  sortInPlaceUnlessSorted(slices, before);

  const totals = wall.track(track);
  // The open-slice stack as parallel typed arrays (no per-slice allocation); a slice can
  // be at most as deep as the track has slices.
  const capacity = slices.length;
  const open = new Int32Array(capacity);
  const openEnd = new Float64Array(capacity);
  /** End of the span covered by the slice and everything nested in it so far. */
  const openCoverEnd = new Float64Array(capacity);
  const openChildNs = new Float64Array(capacity);
  const openHasChild = new Uint8Array(capacity);
  const openStack = new Int32Array(capacity);
  let height = 0;
  const { frameCoverEnd } = scratch;
  const touchedFrames: number[] = [];

  const close = (): void => {
    const top = --height;
    const slice = open[top]!;
    const coverEnd = openCoverEnd[top]!;
    const dur = durNs[slice]!;
    wall.addSelf(totals, frame[slice]!, 1, Math.max(0, dur - openChildNs[top]!));
    if (openHasChild[top] === 0) stacks.add(openStack[top]!, 1, dur, startNs[slice]!, track);
    const parent = top - 1;
    if (parent >= 0) {
      openChildNs[parent]! += Math.min(coverEnd, openEnd[parent]!) - startNs[slice]!;
      if (coverEnd > openCoverEnd[parent]!) openCoverEnd[parent] = coverEnd;
    }
  };

  for (const slice of slices) {
    const start = startNs[slice]!;
    const dur = durNs[slice]!;
    const end = start + dur;
    while (height > 0 && openEnd[height - 1]! <= start) close();
    const f = frame[slice]!;
    depth[slice] = height;
    let parentStack = ROOT_STACK;
    if (height > 0) {
      const top = height - 1;
      openHasChild[top] = 1;
      wall.addEdge(frame[open[top]!]!, f, 1, dur);
      parentStack = openStack[top]!;
    }
    // Slices arrive in start order, so the frame's covered time grows like a union of intervals.
    const covered = frameCoverEnd[f]!;
    if (covered === Number.NEGATIVE_INFINITY) touchedFrames.push(f);
    wall.addInclusive(totals, f, 1, Math.max(0, end - Math.max(start, covered)));
    if (end > covered) frameCoverEnd[f] = end;
    open[height] = slice;
    openEnd[height] = end;
    openCoverEnd[height] = end;
    openChildNs[height] = 0;
    openHasChild[height] = 0;
    openStack[height] = stacks.child(parentStack, f);
    height++;
  }
  while (height > 0) close();
  for (const f of touchedFrames) frameCoverEnd[f] = Number.NEGATIVE_INFINITY;
  return slices.length;
}

