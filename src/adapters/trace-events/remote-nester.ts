/**
 * Slice nesting on another thread. Building a trace's `wall_time` measures, call edges and
 * stack trie is ~a fifth of the parser's work on a Chrome trace, and it needs nothing back
 * while the rows are written but each slice's depth. A RemoteNester keeps only the open
 * slices' ends, to answer that depth exactly as SliceNester would, and sends every call as
 * an op, in chunks, through a NestChannel; on the other side a NestReplay plays the ops into
 * a SliceNester of its own. At the end the other side's measures and trie are handed over
 * and adopted by this side's, which then hold what nesting here would have given.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { grown } from "../common/growable.ts";
import { type MeasureParts, MeasureAccumulator } from "../common/measure-accumulator.ts";
import { type StackSpill, StackTrie, type StackTrieParts } from "../common/stack-trie.ts";
import type { NestChannel, NestOffload } from "../adapter.ts";
import { MAX_STACK_FRAMES, type Nester, SliceNester } from "./slice-nester.ts";

/** An op's first slot: a frame (a push) or one of these. */
export const OP_BEGIN_TRACK = -1;
export const OP_END_TRACK = -2;
/** Ops per chunk (24 bytes each): large enough that a message costs nothing per slice. */
export const OPS_PER_CHUNK = 1 << 15;

/** What the other side hands back: its measures, its trie and the slices it nested. */
export interface NestedParts {
  measures: MeasureParts;
  stacks: StackTrieParts;
  slices: number;
}

export class RemoteNester implements Nester {
  slices = 0;
  /** Counted here from the depths, as the thread's SliceNester counts them. */
  deepSlices = 0;
  private ops: Float64Array;
  private count = 0;
  /** Ends of the open slices, innermost last: all a slice's depth depends on. */
  private openEnd = new Float64Array(64);
  private height = 0;
  private closed = false;

  constructor(
    private readonly channel: NestChannel,
    private readonly measures: MeasureAccumulator,
    private readonly stacks: StackTrie,
  ) {
    this.ops = channel.chunk();
  }

  beginTrack(track: number): void {
    this.op(OP_BEGIN_TRACK, track, 0);
  }

  push(frame: number, start: number, dur: number): number {
    // As SliceNester.push: the open slices that end at or before this start close first.
    const end = start + dur;
    while (this.height > 0 && this.openEnd[this.height - 1]! <= start) this.height--;
    const depth = this.height;
    if (depth === this.openEnd.length) this.openEnd = grown(this.openEnd, depth * 2);
    this.openEnd[depth] = end;
    this.height++;
    this.slices++;
    if (depth >= MAX_STACK_FRAMES) this.deepSlices++;
    this.op(frame, start, dur);
    return depth;
  }

  endTrack(): void {
    this.height = 0;
    this.op(OP_END_TRACK, 0, 0);
  }

  async settled(): Promise<void> {
    if (this.closed) throw new Error("nesting: settled twice");
    this.closed = true;
    if (this.count > 0) this.channel.send(this.count);
    const nested = (await this.channel.finish()) as NestedParts;
    if (nested.slices !== this.slices)
      throw new Error(`nesting thread: ${nested.slices} slices nested of ${this.slices} sent`);
    this.measures.adopt(nested.measures);
    this.stacks.adopt(nested.stacks);
  }

  dispose(): void {
    this.closed = true;
    this.channel.close();
  }

  private op(first: number, second: number, third: number): void {
    const at = 3 * this.count;
    this.ops[at] = first;
    this.ops[at + 1] = second;
    this.ops[at + 2] = third;
    if (++this.count === OPS_PER_CHUNK) this.flush();
  }

  private flush(): void {
    if (this.count === 0) return;
    if (this.closed) throw new Error("nesting: ops after the end");
    this.channel.send(this.count);
    this.count = 0;
    this.ops = this.channel.chunk();
  }
}

/** The other side: plays ops into a SliceNester of its own. */
export class NestReplay {
  private readonly measures: MeasureAccumulator;
  private readonly stacks: StackTrie;
  private readonly nester: SliceNester;

  constructor(frameCount: number, metric: FrameMetric, spill?: StackSpill) {
    this.measures = new MeasureAccumulator(metric);
    this.stacks = new StackTrie(metric, spill);
    this.nester = new SliceNester(frameCount, this.measures, this.stacks);
  }

  apply(ops: Float64Array, count: number): void {
    const nester = this.nester;
    for (let k = 0, at = 0; k < count; k++, at += 3) {
      const first = ops[at]!;
      if (first >= 0) nester.push(first, ops[at + 1]!, ops[at + 2]!);
      else if (first === OP_BEGIN_TRACK) nester.beginTrack(ops[at + 1]!);
      else if (first === OP_END_TRACK) nester.endTrack();
      else throw new Error(`nesting: unknown op ${first}`);
    }
  }

  /** Hands over the measures and trie; nothing may be applied after. */
  finish(): NestedParts {
    return {
      measures: this.measures.handOver(),
      stacks: this.stacks.handOver(),
      slices: this.nester.slices,
    };
  }
}

/**
 * The nester for a trace's slices: on a thread from `offload` when one starts, else here. The
 * measures and trie given are the ones that hold the results once the nester has settled.
 */
export function openNester(
  frameCount: number,
  measures: MeasureAccumulator,
  stacks: StackTrie,
  spill: StackSpill | undefined,
  offload: NestOffload | undefined,
): Nester {
  const channel = offload?.open(frameCount, measures.metric, spill) ?? null;
  return channel === null
    ? new SliceNester(frameCount, measures, stacks)
    : new RemoteNester(channel, measures, stacks);
}
