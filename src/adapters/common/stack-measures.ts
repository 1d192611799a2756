/**
 * One metric's frame measurements, call edges and stacks, fed one whole stack (root frame
 * first) at a time: a frame counts once toward its inclusive value per stack however often
 * it recurs, an edge once per stack, and the leaf takes the self value.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { GrowableI32 } from "./growable.ts";
import { MeasureAccumulator } from "./measure-accumulator.ts";
import { ROOT_STACK, type StackSpill, StackTrie } from "./stack-trie.ts";

export class StackMeasures {
  readonly measures: MeasureAccumulator;
  readonly stacks: StackTrie;
  private stamp = 0;
  /**
   * The stack (stamp) that last counted each frame and each edge, indexed by frame and by
   * the accumulator's dense edge index: typed arrays instead of maps keyed by frame pairs
   * (doubles), which took a third of a text profile's import.
   */
  private readonly seen = new GrowableI32();
  private readonly seenEdges = new GrowableI32();

  constructor(metric: FrameMetric, unit: string, spill?: StackSpill) {
    this.measures = new MeasureAccumulator(metric, unit);
    this.stacks = new StackTrie(metric, spill);
  }

  /**
   * `count` samples worth `value` at `path` on `track`, first seen at `firstRelNs` (Infinity: no
   * time).
   */
  add(
    path: readonly number[],
    track: number,
    count: number,
    value: number,
    firstRelNs = Number.POSITIVE_INFINITY,
  ): void {
    if (path.length === 0) return;
    this.stacks.spillIfFull();
    const stamp = ++this.stamp;
    const totals = this.measures.track(track);
    let stack = ROOT_STACK;
    for (let d = 0; d < path.length; d++) {
      const f = path[d]!;
      while (this.seen.length <= f) this.seen.push(0);
      if (this.seen.array[f] !== stamp) {
        this.seen.array[f] = stamp;
        this.measures.addInclusive(totals, f, count, value);
      }
      if (d > 0) {
        const e = this.measures.edge(path[d - 1]!, f);
        while (this.seenEdges.length <= e) this.seenEdges.push(0);
        if (this.seenEdges.array[e] !== stamp) {
          this.seenEdges.array[e] = stamp;
          this.measures.addToEdge(e, count, value);
        }
      }
      stack = this.stacks.child(stack, f);
    }
    this.measures.addSelf(totals, path[path.length - 1]!, count, value);
    this.stacks.add(stack, count, value, firstRelNs, track);
  }
}
