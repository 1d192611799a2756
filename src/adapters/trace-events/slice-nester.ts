/**
 * Online slice nesting and `wall_time` measurement for one track at a time. Slices must
 * be pushed in nesting order: by start, longer first on equal starts, then input order.
 *
 * A slice is a child of the innermost open slice that ends after it starts; open slices
 * that end at or before a new slice's start are closed first. Self time is the slice's
 * duration minus the time its direct children cover inside it. A child's "cover" is its
 * whole subtree's span: a grandchild can outlast its parent (improperly nested slices, or
 * an open-ended slice closed at the track's end), and that stretch must not also count as
 * the grandparent's self time. So self times on a track never add up to more than the
 * track's busy time, and for properly nested slices this is exactly duration minus the
 * children's durations. Inclusive time is the time covered by the frame's slices on the
 * track: a slice nested in another slice of the same frame (recursion) adds nothing, or
 * only what it covers beyond it. Both sample counts are the number of slices. Call edges
 * count child slices and sum their durations. Stacks are recorded for leaf slices (those
 * without children): their duration is then also their self time.
 *
 * State is the open-slice stack (as deep as the nesting, not as long as the track) and
 * per-frame scratch, so a track of any length streams through in bounded memory.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import { grown } from "../common/growable.ts";
import type { FrameTotals, MeasureAccumulator } from "../common/measure-accumulator.ts";
import { MAX_STACK_FRAMES, ROOT_STACK, type StackTrie } from "../common/stack-trie.ts";

/**
 * A slice nested deeper than MAX_STACK_FRAMES (common/stack-trie.ts) is a row with its true
 * depth and counts in the measures and call edges as any other, but its stack stops at its
 * ancestor at that depth (the stack's leaf then holds that slice's time). The nester does not
 * intern those paths at all: a real browser trace repeated to 600 MB reached thousands of
 * levels and a single batch of stack rows passed the worker's 512 MiB.
 */
export { MAX_STACK_FRAMES };

/** What a trace import says about its slices nested past MAX_STACK_FRAMES. */
export function deepSlicesLimitation(deepSlices: number): Limitation[] {
  if (deepSlices === 0) return [];
  return [
    {
      code: "deep_stacks_cut",
      message:
        `Slices nested more than ${MAX_STACK_FRAMES} deep; their rows and measures are whole, ` +
        `but their stacks stop at the ${MAX_STACK_FRAMES}th frame, which holds their time`,
      count: deepSlices,
    },
  ];
}

/**
 * What nests a trace's slices, track by track: a SliceNester here, or one on another thread fed
 * through a RemoteNester (remote-nester.ts). `push` gives the slice's depth either way; the
 * measures and stacks are complete once `settled` resolves.
 */
export interface Nester {
  /** Slices nested so far, over all tracks. */
  readonly slices: number;
  /** Slices nested deeper than MAX_STACK_FRAMES (their stacks stop at that depth). */
  readonly deepSlices: number;
  beginTrack(track: number): void;
  /** Opens the next slice in nesting order; returns its depth. */
  push(frame: number, start: number, dur: number): number;
  /** Closes what is still open on the track. */
  endTrack(): void;
  /** Resolves once every slice pushed is in the measures and stacks. */
  settled(): Promise<void>;
  /** Stops nesting after a failure (a thread doing it stops). */
  dispose(): void;
}

export class SliceNester implements Nester {
  private capacity = 64;
  private openFrame = new Int32Array(this.capacity);
  private openStart = new Float64Array(this.capacity);
  private openDur = new Float64Array(this.capacity);
  private openEnd = new Float64Array(this.capacity);
  /** End of the span covered by the slice and everything nested in it so far. */
  private openCoverEnd = new Float64Array(this.capacity);
  private openChildNs = new Float64Array(this.capacity);
  private openHasChild = new Uint8Array(this.capacity);
  private openStack = new Int32Array(this.capacity);
  /** Per stack of the trie, its call edge in `wall` (-1: not looked up yet). */
  private stackEdge: Int32Array = new Int32Array(1024).fill(-1);
  private height = 0;
  /** The trie's epoch the open slices' stack indices belong to. */
  private stacksEpoch: number;
  private track = -1;
  private totals: FrameTotals | null = null;
  /** Per frame: end of the time its slices on this track cover so far (-Infinity: none yet). */
  private readonly frameCoverEnd: Float64Array;
  private readonly touchedFrames: number[] = [];
  /** Slices nested so far, over all tracks. */
  slices = 0;
  deepSlices = 0;

  constructor(
    frameCount: number,
    private readonly wall: MeasureAccumulator,
    private readonly stacks: StackTrie,
  ) {
    this.frameCoverEnd = new Float64Array(frameCount).fill(Number.NEGATIVE_INFINITY);
    this.stacksEpoch = stacks.epoch;
  }

  beginTrack(track: number): void {
    this.track = track;
    this.totals = this.wall.track(track);
  }

  /** Opens the next slice in nesting order; returns its depth. */
  push(frame: number, start: number, dur: number): number {
    const end = start + dur;
    this.syncStacks();
    while (this.height > 0 && this.openEnd[this.height - 1]! <= start) this.close();
    // Between slices no index is in use but the open ones, which syncStacks renews.
    if (this.stacks.spillIfFull()) this.syncStacks();
    const depth = this.height;
    const deep = depth >= MAX_STACK_FRAMES;
    let stack: number;
    if (deep) {
      stack = this.openStack[depth - 1]!;
      this.deepSlices++;
    } else stack = this.stacks.child(depth > 0 ? this.openStack[depth - 1]! : ROOT_STACK, frame);
    if (depth > 0) {
      const top = depth - 1;
      this.openHasChild[top] = 1;
      // A deep slice shares its ancestor's stack, whose cached edge is not this slice's.
      const parentFrame = this.openFrame[top]!;
      const edge = deep
        ? this.wall.edge(parentFrame, frame)
        : this.edgeOf(stack, parentFrame, frame);
      this.wall.addToEdge(edge, 1, dur);
    }
    // Slices arrive in start order, so the frame's covered time grows like a union of intervals.
    const covered = this.frameCoverEnd[frame]!;
    if (covered === Number.NEGATIVE_INFINITY) this.touchedFrames.push(frame);
    this.wall.addInclusive(this.totals!, frame, 1, Math.max(0, end - Math.max(start, covered)));
    if (end > covered) this.frameCoverEnd[frame] = end;
    if (depth === this.capacity) this.grow();
    this.openFrame[depth] = frame;
    this.openStart[depth] = start;
    this.openDur[depth] = dur;
    this.openEnd[depth] = end;
    this.openCoverEnd[depth] = end;
    this.openChildNs[depth] = 0;
    this.openHasChild[depth] = 0;
    this.openStack[depth] = stack;
    this.height++;
    this.slices++;
    return depth;
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }

  dispose(): void {}

  /** Closes what is still open on the track and resets the per-frame scratch. */
  endTrack(): void {
    this.syncStacks();
    while (this.height > 0) this.close();
    for (const f of this.touchedFrames) this.frameCoverEnd[f] = Number.NEGATIVE_INFINITY;
    this.touchedFrames.length = 0;
    this.totals = null;
  }

  /**
   * The call edge into `stack` (a child slice's stack, its parent's frame → its frame), looked up
   * once per stack: a stack's last two frames are its edge, and a trace has several slices per
   * stack, so most slices find their edge in one array instead of the accumulator's hash table.
   */
  private edgeOf(stack: number, parentFrame: number, frame: number): number {
    if (stack >= this.stackEdge.length) this.stackEdge = grownEdges(this.stackEdge, stack);
    let edge = this.stackEdge[stack]!;
    if (edge < 0) edge = this.stackEdge[stack] = this.wall.edge(parentFrame, frame);
    return edge;
  }

  /** Interns the open slices' paths again if the trie spilled since they were opened. */
  private syncStacks(): void {
    if (this.stacksEpoch === this.stacks.epoch) return;
    // Stack indices start over after a spill, and so do their edges.
    this.stackEdge.fill(-1);
    let parent = ROOT_STACK;
    for (let d = 0; d < this.height; d++)
      parent = this.openStack[d] =
        d < MAX_STACK_FRAMES ? this.stacks.child(parent, this.openFrame[d]!) : parent;
    this.stacksEpoch = this.stacks.epoch;
  }

  private close(): void {
    const top = --this.height;
    const coverEnd = this.openCoverEnd[top]!;
    const dur = this.openDur[top]!;
    const start = this.openStart[top]!;
    this.wall.addSelf(
      this.totals!,
      this.openFrame[top]!,
      1,
      Math.max(0, dur - this.openChildNs[top]!),
    );
    if (this.openHasChild[top] === 0)
      this.stacks.add(this.openStack[top]!, 1, dur, start, this.track);
    const parent = top - 1;
    if (parent >= 0) {
      this.openChildNs[parent]! += Math.min(coverEnd, this.openEnd[parent]!) - start;
      if (coverEnd > this.openCoverEnd[parent]!) this.openCoverEnd[parent] = coverEnd;
    }
  }

  private grow(): void {
    const n = this.capacity * 2;
    this.openFrame = grown(this.openFrame, n);
    this.openStart = grown(this.openStart, n);
    this.openDur = grown(this.openDur, n);
    this.openEnd = grown(this.openEnd, n);
    this.openCoverEnd = grown(this.openCoverEnd, n);
    this.openChildNs = grown(this.openChildNs, n);
    this.openHasChild = grown(this.openHasChild, n);
    this.openStack = grown(this.openStack, n);
    this.capacity = n;
  }
}

/** `edges` grown to hold index `stack`, the new entries -1. */
function grownEdges(edges: Int32Array, stack: number): Int32Array {
  let size = edges.length * 2;
  while (size <= stack) size *= 2;
  const next = new Int32Array(size).fill(-1);
  next.set(edges);
  return next;
}
