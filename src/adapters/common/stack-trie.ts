/**
 * Unique stacks (root → leaf frame paths) as a trie: a stack is interned by (parent
 * stack, leaf frame), so building a path costs one hash lookup per level and paths are
 * only materialized for output. Each stack row is unique per metric and path; its
 * track_id is set only when every contribution came from one track.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import { stackId } from "../../domain/frame-id.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import { IntPairMap } from "./int-pair-map.ts";
import type { NsClock } from "./time-ns.ts";
import type { TrackLookup } from "./track.ts";

/** The empty path (the parent of top-level frames). */
export const ROOT_STACK = -1;
const NO_TRACK = -1;
const MIXED_TRACKS = -2;

export class StackTrie {
  readonly metric: FrameMetric;
  private readonly index = new IntPairMap();
  private readonly parent: number[] = [];
  private readonly frame: number[] = [];
  private readonly count: number[] = [];
  private readonly durationNs: number[] = [];
  private readonly firstRelNs: number[] = [];
  private readonly track: number[] = [];

  constructor(metric: FrameMetric) {
    this.metric = metric;
  }

  child(parent: number, frame: number): number {
    // Keys are (parent + 1, frame) so the empty path (-1) maps to a non-negative key.
    let stack = this.index.get(parent + 1, frame);
    if (stack < 0) {
      stack = this.parent.length;
      this.index.set(parent + 1, frame, stack);
      this.parent.push(parent);
      this.frame.push(frame);
      this.count.push(0);
      this.durationNs.push(0);
      this.firstRelNs.push(Number.POSITIVE_INFINITY);
      this.track.push(NO_TRACK);
    }
    return stack;
  }

  /** Records `count` samples or leaf slices ending exactly at `stack`. */
  add(stack: number, count: number, durationNs: number, firstRelNs: number, track: number): void {
    this.count[stack]! += count;
    this.durationNs[stack]! += durationNs;
    if (firstRelNs < this.firstRelNs[stack]!) this.firstRelNs[stack] = firstRelNs;
    const seen = this.track[stack]!;
    if (seen === NO_TRACK) this.track[stack] = track;
    else if (seen !== track) this.track[stack] = MIXED_TRACKS;
  }

  emit(stacks: TableBuffer, frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): void {
    for (let s = 0; s < this.parent.length; s++) {
      if (this.count[s] === 0) continue;
      const path: string[] = [];
      for (let at = s; at !== ROOT_STACK; at = this.parent[at]!) path.push(frames.ids[this.frame[at]!]!);
      path.reverse();
      const first = this.firstRelNs[s]!;
      const track = this.track[s]!;
      stacks.append({
        stack_id: stackId(this.metric, path),
        metric: this.metric,
        frame_ids: path,
        leaf_frame_id: path[path.length - 1]!,
        sample_count: this.count[s]!,
        duration_ns: this.durationNs[s]!,
        first_ts_ns: Number.isFinite(first) ? clock.absNs(first) : null,
        track_id: track >= 0 ? tracks(track).id : null,
      });
    }
  }
}
