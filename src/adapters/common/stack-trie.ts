/**
 * Unique stacks (root → leaf frame paths) as a trie: a stack is interned by (parent
 * stack, leaf frame), so building a path costs one hash lookup per level and paths are
 * only materialized for output. Each stack row is unique per metric and path; its
 * track_id is set only when every contribution came from one track.
 */
import { EVIDENCE_SCHEMAS, type FrameMetric } from "../../domain/evidence-schema.ts";
import { stackId } from "../../domain/frame-id.ts";
import { TableBuffer } from "../../domain/table-buffer.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import { GrowableF64, GrowableI32 } from "./growable.ts";
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
  // Typed columns (~36 bytes a stack): traces with millions of distinct stacks stay compact.
  private readonly parent = new GrowableI32();
  private readonly frame = new GrowableI32();
  private readonly track = new GrowableI32();
  private readonly count = new GrowableF64();
  private readonly durationNs = new GrowableF64();
  private readonly firstRelNs = new GrowableF64();

  constructor(metric: FrameMetric) {
    this.metric = metric;
  }

  /** Distinct stacks so far (with or without samples). */
  get size(): number {
    return this.parent.length;
  }

  child(parent: number, frame: number): number {
    // Keys are (parent + 1, frame) so the empty path (-1) maps to a non-negative key.
    let stack = this.index.get(parent + 1, frame);
    if (stack < 0) {
      stack = this.parent.push(parent);
      this.index.set(parent + 1, frame, stack);
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
    this.count.array[stack]! += count;
    this.durationNs.array[stack]! += durationNs;
    const first = this.firstRelNs.array;
    if (firstRelNs < first[stack]!) first[stack] = firstRelNs;
    const tracks = this.track.array;
    const seen = tracks[stack]!;
    if (seen === NO_TRACK) tracks[stack] = track;
    else if (seen !== track) tracks[stack] = MIXED_TRACKS;
  }

  emit(stacks: TableBuffer, frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): void {
    this.emitRange(stacks, 0, this.size, frames, clock, tracks);
  }

  /** The rows in buffers of at most `rows` stacks each, so a huge trie is never one table in memory. */
  *emitChunks(rows: number, frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): Generator<TableBuffer> {
    for (let from = 0; from < this.size; from += rows) {
      const buffer = new TableBuffer(EVIDENCE_SCHEMAS.stacks);
      this.emitRange(buffer, from, Math.min(this.size, from + rows), frames, clock, tracks);
      if (buffer.rowCount > 0) yield buffer;
    }
  }

  private emitRange(stacks: TableBuffer, from: number, to: number, frames: FrameRegistry, clock: NsClock, tracks: TrackLookup): void {
    const parent = this.parent.array;
    const frame = this.frame.array;
    for (let s = from; s < to; s++) {
      if (this.count.array[s] === 0) continue;
      const path: string[] = [];
      for (let at = s; at !== ROOT_STACK; at = parent[at]!) path.push(frames.ids[frame[at]!]!);
      path.reverse();
      const first = this.firstRelNs.array[s]!;
      const track = this.track.array[s]!;
      stacks.append({
        stack_id: stackId(this.metric, path),
        metric: this.metric,
        frame_ids: path,
        leaf_frame_id: path[path.length - 1]!,
        sample_count: this.count.array[s]!,
        duration_ns: this.durationNs.array[s]!,
        first_ts_ns: Number.isFinite(first) ? clock.absNs(first) : null,
        track_id: track >= 0 ? tracks(track).id : null,
      });
    }
  }
}
