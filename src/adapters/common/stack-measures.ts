/**
 * One metric's frame measurements, call edges and stacks, fed one whole stack (root frame
 * first) at a time: a frame counts once toward its inclusive value per stack however often
 * it recurs, an edge once per stack, and the leaf takes the self value.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { MeasureAccumulator } from "./measure-accumulator.ts";
import { ROOT_STACK, type StackSpill, StackTrie } from "./stack-trie.ts";

export class StackMeasures {
  readonly measures: MeasureAccumulator;
  readonly stacks: StackTrie;
  private stamp = 0;
  private readonly seen = new Map<number, number>();
  private readonly seenEdges = new Map<number, number>();

  constructor(metric: FrameMetric, unit: string, spill?: StackSpill) {
    this.measures = new MeasureAccumulator(metric, unit);
    this.stacks = new StackTrie(metric, spill);
  }

  /** `count` samples worth `value` at `path` on `track`, first seen at `firstRelNs` (Infinity: no time). */
  add(path: readonly number[], track: number, count: number, value: number, firstRelNs = Number.POSITIVE_INFINITY): void {
    if (path.length === 0) return;
    this.stacks.spillIfFull();
    const stamp = ++this.stamp;
    const totals = this.measures.track(track);
    let stack = ROOT_STACK;
    for (let d = 0; d < path.length; d++) {
      const f = path[d]!;
      if (this.seen.get(f) !== stamp) {
        this.seen.set(f, stamp);
        this.measures.addInclusive(totals, f, count, value);
      }
      if (d > 0) {
        // The pair packs into one exact double while frame ids stay below 2^26 (as in perfetto-samples.ts).
        const key = path[d - 1]! * 2 ** 26 + f;
        if (this.seenEdges.get(key) !== stamp) {
          this.seenEdges.set(key, stamp);
          this.measures.addEdge(path[d - 1]!, f, count, value);
        }
      }
      stack = this.stacks.child(stack, f);
    }
    this.measures.addSelf(totals, path[path.length - 1]!, count, value);
    this.stacks.add(stack, count, value, firstRelNs, track);
  }
}
