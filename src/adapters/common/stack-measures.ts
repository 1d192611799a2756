/**
 * One metric's frame measurements, call edges and stacks, fed one whole stack (root frame
 * first) at a time: a frame counts once toward its inclusive value per stack however often
 * it recurs, an edge once per stack, and the leaf takes the self value.
 *
 * With a twin metric (one always added at the same stacks with the same counts, such as a heap
 * profile's objects beside its bytes) each stack is walked once for both: one frame dedup, one
 * edge lookup and one trie lookup per level, where two StackMeasures would do each twice. The
 * twin's values are summed apart, in the same order, so its rows are those a StackMeasures of
 * its own would give, bit for bit.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { GrowableI32 } from "./growable.ts";
import { type FrameTotals, MeasureAccumulator, type TwinMetric } from "./measure-accumulator.ts";
import {
  E_EDGE_COUNT,
  E_EDGES,
  E_EPOCH,
  E_FRAME_COUNT,
  E_FRAMES,
  E_LEAF,
  StackPathCache,
} from "./stack-path-cache.ts";
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
  /** Stacks seen lately, replayed without lookups (stack-path-cache.ts). */
  private readonly cache = new StackPathCache();

  constructor(metric: FrameMetric, unit: string, spill?: StackSpill, twin?: TwinMetric) {
    this.measures = new MeasureAccumulator(metric, unit, twin ?? null);
    this.stacks = new StackTrie(metric, spill, twin ?? null);
  }

  /** The twin metric summed beside this one, if any. */
  get twin(): TwinMetric | null {
    return this.measures.twin;
  }

  /** Stacks replayed from the cache so far. */
  get cacheHits(): number {
    return this.cache.use.totalHits;
  }

  /**
   * `count` samples worth `value` (and `twinValue` to the twin metric, if there is one) at `path`
   * on `track`, first seen at `firstRelNs` (Infinity: no time).
   */
  add(
    path: readonly number[],
    track: number,
    count: number,
    value: number,
    firstRelNs = Number.POSITIVE_INFINITY,
    twinValue = 0,
  ): void {
    if (path.length === 0) return;
    this.stacks.spillIfFull();
    const totals = this.measures.track(track);
    const cache = this.cache;
    const hit = cache.find(path);
    if (hit >= 0) {
      this.replay(hit, path, totals, count, value, firstRelNs, track, twinValue);
      return;
    }
    const remember = cache.remembering;
    if (remember) cache.begin(path);
    const stamp = ++this.stamp;
    let stack = ROOT_STACK;
    // Frames first, then edges, as the cache records them; each sum gets its adds in path order.
    for (let d = 0; d < path.length; d++) {
      const f = path[d]!;
      while (this.seen.length <= f) this.seen.push(0);
      if (this.seen.array[f] !== stamp) {
        this.seen.array[f] = stamp;
        this.measures.addInclusive(totals, f, count, value, twinValue);
        if (remember) cache.frame(f);
      }
    }
    if (remember) cache.framesDone();
    for (let d = 0; d < path.length; d++) {
      const f = path[d]!;
      if (d > 0) {
        const e = this.measures.edge(path[d - 1]!, f);
        while (this.seenEdges.length <= e) this.seenEdges.push(0);
        if (this.seenEdges.array[e] !== stamp) {
          this.seenEdges.array[e] = stamp;
          this.measures.addToEdge(e, count, value, twinValue);
          if (remember) cache.edge(e);
        }
      }
      stack = this.stacks.child(stack, f);
    }
    if (remember) cache.end(stack, this.stacks.epoch);
    this.measures.addSelf(totals, path[path.length - 1]!, count, value, twinValue);
    this.stacks.add(stack, count, value, firstRelNs, track, twinValue);
  }

  /** A cached stack's adds, in the order the slow path made them. */
  private replay(
    at: number,
    path: readonly number[],
    totals: FrameTotals,
    count: number,
    value: number,
    firstRelNs: number,
    track: number,
    twinValue: number,
  ): void {
    const cache = this.cache;
    const entry = cache.entries;
    const ints = cache.ints.array;
    const frames = entry[at + E_FRAMES]!;
    const frameEnd = frames + entry[at + E_FRAME_COUNT]!;
    for (let k = frames; k < frameEnd; k++)
      this.measures.addInclusive(totals, ints[k]!, count, value, twinValue);
    const edges = entry[at + E_EDGES]!;
    const edgeEnd = edges + entry[at + E_EDGE_COUNT]!;
    for (let k = edges; k < edgeEnd; k++)
      this.measures.addToEdge(ints[k]!, count, value, twinValue);
    let leaf = entry[at + E_LEAF]!;
    if (entry[at + E_EPOCH] !== this.stacks.epoch) {
      // The trie spilled since: its stacks are interned again, as the slow path would.
      leaf = ROOT_STACK;
      for (let d = 0; d < path.length; d++) leaf = this.stacks.child(leaf, path[d]!);
      cache.setLeaf(at, leaf, this.stacks.epoch);
    }
    this.measures.addSelf(totals, path[path.length - 1]!, count, value, twinValue);
    this.stacks.add(leaf, count, value, firstRelNs, track, twinValue);
  }
}
