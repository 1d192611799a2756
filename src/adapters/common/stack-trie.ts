/**
 * Unique stacks (root → leaf frame paths) as a trie: a stack is interned by (parent
 * stack, leaf frame), so building a path costs one hash lookup per level and paths are
 * only materialized for output. Each stack row is unique per metric and path; its
 * track_id is set only when every contribution came from one track.
 *
 * Given scratch space, a trie holds at most `maxStacks` stacks: when full it spills its
 * aggregates (stack-runs.ts) and starts empty, and output merges the spilled runs. Stack
 * indices handed out before a spill are then stale; holders that keep indices across
 * calls compare `epoch` and intern their paths again (SliceNester does).
 *
 * A trie can carry a twin metric (measure-accumulator.ts): its stacks get the same adds with
 * a duration of their own, so they are the same stacks, counts, times and tracks; only the
 * durations are kept apart (a column here, runs of their own when spilling), and its rows
 * follow the first metric's, as a trie of its own would give them.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { stackId } from "../../domain/frame-id.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import type { SpillFile, SpillSpace } from "../adapter.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import type { TwinMetric } from "./measure-accumulator.ts";
import { GrowableF64, GrowableI32, GrowableU8 } from "./growable.ts";
import { IntPairMap } from "./int-pair-map.ts";
import {
  MIXED_TRACKS,
  NO_TRACK,
  type StackColumns,
  type StackRow,
  StackRuns,
} from "./stack-runs.ts";
import type { NsClock } from "./time-ns.ts";
import type { TrackLookup } from "./track.ts";

/** The empty path (the parent of top-level frames). */
export const ROOT_STACK = -1;
/**
 * Stacks in memory before a spill: ~36 bytes each in columns plus ~24 in the index, so
 * ~30 MB at most, and a spilled run per half million new stacks.
 */
export const DEFAULT_MAX_STACKS = 1 << 19;

/**
 * Frames a stack keeps at most, root first; a deeper path ends at its ancestor at this depth,
 * whose stack holds its samples. A stack row lists its whole path, so without a bound the
 * rows of a deepening tree (a V8 profile's call chain, slices that never end) are rows times
 * depth frames: a crafted 3 MB cpuprofile of one 20,000-deep chain ran a worker out of 8 GiB.
 * V8's sampler keeps 255 frames a sample, for the same reason. The measures (hotspots, call
 * edges) are kept whole.
 */
export const MAX_STACK_FRAMES = 256;

/** What an import says about stacks its tries cut at MAX_STACK_FRAMES (none: nothing). */
export function deepStacksLimitation(tries: readonly StackTrie[]): Limitation[] {
  const count = tries.reduce((sum, trie) => sum + trie.deepStacks, 0);
  if (count === 0) return [];
  return [
    {
      code: "deep_stack_paths_cut",
      message:
        `Stack paths deeper than ${MAX_STACK_FRAMES} frames; their measures are whole, but ` +
        `their stacks stop at the ${MAX_STACK_FRAMES}th frame, which holds their samples`,
      count,
    },
  ];
}

/** A trie's contents as another trie takes them (`handOver`, `adopt`). */
export interface StackTrieParts {
  columns: StackColumns;
  /** Spilled runs, oldest first. */
  runs: SpillFile[];
  /** Its `deepStacks`. */
  deepStacks: number;
}

export interface StackSpill {
  space: SpillSpace;
  maxStacks?: number;
}

export class StackTrie {
  readonly metric: FrameMetric;
  /** Changes whenever the trie spills and stack indices handed out before become stale. */
  epoch = 0;
  private index = new IntPairMap();
  /** False after `adopt`: the index is built again on the next `child`. */
  private indexed = true;
  // Typed columns (~36 bytes a stack): traces with millions of distinct stacks stay compact.
  private parent = new GrowableI32();
  private frame = new GrowableI32();
  private track = new GrowableI32();
  private count = new GrowableF64();
  private durationNs = new GrowableF64();
  private firstRelNs = new GrowableF64();
  /** The twin metric's durations (empty without a twin). */
  private twinDurationNs = new GrowableF64();
  /** Frames in each stack's path (see MAX_STACK_FRAMES). */
  private depth = new GrowableI32();
  /** 1 for a stack at MAX_STACK_FRAMES once deeper paths have ended at it. */
  private absorbs = new GrowableU8();
  /** Stacks at MAX_STACK_FRAMES that absorbed deeper paths (again after a spill). */
  deepStacks = 0;
  private readonly runs: StackRuns | null;
  private readonly twinRuns: StackRuns | null;
  private readonly maxStacks: number;

  constructor(
    metric: FrameMetric,
    spill?: StackSpill,
    readonly twin: TwinMetric | null = null,
  ) {
    this.metric = metric;
    this.runs = spill ? new StackRuns(spill.space) : null;
    this.twinRuns = spill && twin ? new StackRuns(spill.space) : null;
    this.maxStacks = spill?.maxStacks ?? DEFAULT_MAX_STACKS;
  }

  /** The metrics whose rows the trie gives: its own, then its twin's. */
  get metrics(): FrameMetric[] {
    return this.twin === null ? [this.metric] : [this.metric, this.twin.metric];
  }

  /** Distinct stacks in memory (with or without samples). */
  get size(): number {
    return this.parent.length;
  }

  /**
   * Spills when the trie is full; returns whether it did. Call it only where no stack index
   * is in use: after a spill every index handed out before is stale.
   */
  spillIfFull(): boolean {
    if (this.runs === null || this.size < this.maxStacks) return false;
    this.spill(this.runs);
    return true;
  }

  /** The stacks in memory as their columns (the arrays themselves, longer than `size`). */
  private columns(): StackColumns {
    return {
      size: this.size,
      parent: this.parent.array,
      frame: this.frame.array,
      track: this.track.array,
      count: this.count.array,
      durationNs: this.durationNs.array,
      firstRelNs: this.firstRelNs.array,
    };
  }

  private spill(runs: StackRuns): void {
    const columns = this.columns();
    runs.spill(columns);
    this.twinRuns?.spill({ ...columns, durationNs: this.twinDurationNs.array });
    this.clear();
  }

  /** Empties the stacks in memory; indices handed out before are stale. */
  private clear(): void {
    this.index = new IntPairMap();
    this.indexed = true;
    this.parent = new GrowableI32();
    this.frame = new GrowableI32();
    this.track = new GrowableI32();
    this.count = new GrowableF64();
    this.durationNs = new GrowableF64();
    this.firstRelNs = new GrowableF64();
    this.twinDurationNs = new GrowableF64();
    this.depth = new GrowableI32();
    this.absorbs = new GrowableU8();
    this.epoch++;
  }

  /** After `adopt`: the index and the depths (a parent always comes before its children). */
  private reindex(): void {
    this.index = new IntPairMap();
    const parent = this.parent.array;
    const frame = this.frame.array;
    this.depth = new GrowableI32();
    this.absorbs = new GrowableU8();
    for (let s = 0; s < this.size; s++) {
      this.index.set(parent[s]! + 1, frame[s]!, s);
      this.depth.push(parent[s]! === ROOT_STACK ? 1 : this.depth.array[parent[s]!]! + 1);
      this.absorbs.push(0);
    }
    this.indexed = true;
  }

  /**
   * The trie's stacks and spilled runs, given up: this trie is empty afterwards and another (on
   * another thread, say) takes them with `adopt`. A trie with a twin is not handed over.
   */
  handOver(): StackTrieParts {
    if (this.twin !== null)
      throw new Error(`${this.metric} stacks: a twin trie is not handed over`);
    const parts: StackTrieParts = {
      columns: this.columns(),
      runs: this.runs?.handOver() ?? [],
      deepStacks: this.deepStacks,
    };
    this.deepStacks = 0;
    this.clear();
    return parts;
  }

  /**
   * Takes over what another trie of this metric handed over. This one must be empty; spilled runs
   * need this trie to have scratch space too.
   */
  adopt(parts: StackTrieParts): void {
    if (this.size > 0 || (this.runs?.count ?? 0) > 0)
      throw new Error(`${this.metric} stacks: only an empty trie adopts another's`);
    if (parts.runs.length > 0) {
      if (this.runs === null) throw new Error(`${this.metric} stacks: spilled runs need a space`);
      this.runs.adopt(parts.runs);
    }
    this.deepStacks += parts.deepStacks;
    const { size, parent, frame, track, count, durationNs, firstRelNs } = parts.columns;
    const take = (g: GrowableI32 | GrowableF64, array: Int32Array | Float64Array) => {
      g.array = array;
      g.length = size;
    };
    take(this.parent, parent);
    take(this.frame, frame);
    take(this.track, track);
    take(this.count, count);
    take(this.durationNs, durationNs);
    take(this.firstRelNs, firstRelNs);
    // Looked up again only if more stacks are interned; output does not need it.
    this.indexed = false;
    this.epoch++;
  }

  child(parent: number, frame: number): number {
    if (!this.indexed) this.reindex();
    const parentDepth = parent === ROOT_STACK ? 0 : this.depth.array[parent]!;
    if (parentDepth >= MAX_STACK_FRAMES) {
      if (this.absorbs.array[parent] === 0) {
        this.absorbs.array[parent] = 1;
        this.deepStacks++;
      }
      return parent;
    }
    // Keys are (parent + 1, frame) so the empty path (-1) maps to a non-negative key.
    let stack = this.index.get(parent + 1, frame);
    if (stack < 0) {
      stack = this.parent.push(parent);
      this.depth.push(parentDepth + 1);
      this.absorbs.push(0);
      this.index.set(parent + 1, frame, stack);
      this.frame.push(frame);
      this.count.push(0);
      this.durationNs.push(0);
      this.firstRelNs.push(Number.POSITIVE_INFINITY);
      this.track.push(NO_TRACK);
      if (this.twin !== null) this.twinDurationNs.push(0);
    }
    return stack;
  }

  /**
   * Records `count` samples or leaf slices ending exactly at `stack`; `twinNs` is the twin
   * metric's duration of the same samples (ignored without a twin).
   */
  add(
    stack: number,
    count: number,
    durationNs: number,
    firstRelNs: number,
    track: number,
    twinNs = 0,
  ): void {
    this.count.array[stack]! += count;
    this.durationNs.array[stack]! += durationNs;
    if (this.twin !== null) this.twinDurationNs.array[stack]! += twinNs;
    const first = this.firstRelNs.array;
    if (firstRelNs < first[stack]!) first[stack] = firstRelNs;
    const tracks = this.track.array;
    const seen = tracks[stack]!;
    if (seen === NO_TRACK) tracks[stack] = track;
    else if (seen !== track) tracks[stack] = MIXED_TRACKS;
  }

  /** Writes the metric's stacks, then its twin's. */
  emit(stacks: TableBuffer, frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): void {
    for (const metric of this.metrics)
      for (const row of this.stackRows(metric !== this.metric))
        appendStack(stacks, metric, row, frames, clock, tracks);
  }

  /**
   * Every stack with samples once, with the metric's durations or (`twin`) its twin's; after a
   * spill, the merge of the runs and what is in memory. A row (one object, reused) and its
   * `path` are valid until the next row is taken. Either metric's rows can be taken first, each
   * once.
   */
  *stackRows(twin = false): Generator<StackRow> {
    const runs = twin ? this.twinRuns : this.runs;
    if (twin && this.twin === null) throw new Error(`${this.metric} stacks have no twin metric`);
    if (runs !== null && runs.count > 0) {
      // A spill writes both metrics' runs; the first metric's rows may have spilled already.
      if (this.size > 0) this.spill(this.runs!);
      yield* runs.merged();
      return;
    }
    const durationNs = twin ? this.twinDurationNs : this.durationNs;
    const parent = this.parent.array;
    const frame = this.frame.array;
    // One row object and one path buffer for all rows, with a view per path length: a
    // trace's hundreds of thousands of stacks are a few lengths, and a view per row was
    // garbage the size of the rows.
    const paths = new PathViews();
    const row: StackRow = { path: paths.view(0), count: 0, durationNs: 0, firstRelNs: 0, track: 0 };
    for (let s = 0; s < this.size; s++) {
      if (this.count.array[s] === 0) continue;
      let depth = 0;
      for (let at = s; at !== ROOT_STACK; at = parent[at]!) depth++;
      const path = paths.view(depth);
      for (let at = s, k = depth - 1; at !== ROOT_STACK; at = parent[at]!, k--)
        path[k] = frame[at]!;
      row.path = path;
      row.count = this.count.array[s]!;
      row.durationNs = durationNs.array[s]!;
      row.firstRelNs = this.firstRelNs.array[s]!;
      row.track = this.track.array[s]!;
      yield row;
    }
  }
}

/** Views of the first N ints of one buffer, one view per N, made once each. */
class PathViews {
  private buffer = new Int32Array(64);
  private views: Int32Array[] = [];

  view(length: number): Int32Array {
    if (length > this.buffer.length) {
      this.buffer = new Int32Array(Math.max(length, this.buffer.length * 2));
      this.views = [];
    }
    return (this.views[length] ??= this.buffer.subarray(0, length));
  }
}

function appendStack(
  stacks: TableBuffer,
  metric: FrameMetric,
  row: StackRow,
  frames: FrameRegistry,
  clock: NsClock,
  tracks: TrackLookup,
): void {
  const path = Array.from(row.path, (f) => frames.ids[f]!);
  stacks.append({
    stack_id: stackId(metric, path),
    metric,
    frame_ids: path,
    leaf_frame_id: path[path.length - 1]!,
    sample_count: row.count,
    duration_ns: row.durationNs,
    first_ts_ns: Number.isFinite(row.firstRelNs) ? clock.absNs(row.firstRelNs) : null,
    track_id: row.track >= 0 ? tracks(row.track).id : null,
  });
}
