/**
 * Accumulates one metric's per-frame measurements (per track) and call edges, then
 * writes them as `frame_measurements` and `call_edges` rows. Values are summed in dense
 * arrays indexed by frame, so the hot loops never allocate.
 */
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import type { FrameRegistry } from "./frame-registry.ts";
import { IntPairMap } from "./int-pair-map.ts";
import type { TrackLookup } from "./track.ts";

/** One track's sums, indexed by frame. */
export class FrameTotals {
  selfNs: number[] = [];
  inclusiveNs: number[] = [];
  selfCount: number[] = [];
  inclusiveCount: number[] = [];

  ensure(frame: number): void {
    for (let i = this.selfNs.length; i <= frame; i++) {
      this.selfNs.push(0);
      this.inclusiveNs.push(0);
      this.selfCount.push(0);
      this.inclusiveCount.push(0);
    }
  }
}

export class MeasureAccumulator {
  readonly metric: FrameMetric;
  /** Unit of the values (`ns` for time metrics, `bytes` or `count` for others). */
  readonly unit: string;
  private readonly totalsByTrack = new Map<number, FrameTotals>();
  private readonly edgeIndex = new IntPairMap();
  private readonly edgeParent: number[] = [];
  private readonly edgeChild: number[] = [];
  private readonly edgeCount: number[] = [];
  private readonly edgeNs: number[] = [];

  constructor(metric: FrameMetric, unit = "ns") {
    this.metric = metric;
    this.unit = unit;
  }

  /** Totals for a track, to be filled through `addSelf` / `addInclusive`. */
  track(track: number): FrameTotals {
    let totals = this.totalsByTrack.get(track);
    if (!totals) {
      totals = new FrameTotals();
      this.totalsByTrack.set(track, totals);
    }
    return totals;
  }

  addSelf(totals: FrameTotals, frame: number, count: number, ns: number): void {
    if (frame >= totals.selfNs.length) totals.ensure(frame);
    totals.selfCount[frame]! += count;
    totals.selfNs[frame]! += ns;
  }

  addInclusive(totals: FrameTotals, frame: number, count: number, ns: number): void {
    if (frame >= totals.selfNs.length) totals.ensure(frame);
    totals.inclusiveCount[frame]! += count;
    totals.inclusiveNs[frame]! += ns;
  }

  addEdge(parent: number, child: number, count: number, ns: number): void {
    this.addToEdge(this.edge(parent, child), count, ns);
  }

  /** The dense index of the parent → child edge, created (with zero totals) on first sight. */
  edge(parent: number, child: number): number {
    let index = this.edgeIndex.get(parent, child);
    if (index < 0) {
      index = this.edgeParent.length;
      this.edgeIndex.set(parent, child, index);
      this.edgeParent.push(parent);
      this.edgeChild.push(child);
      this.edgeCount.push(0);
      this.edgeNs.push(0);
    }
    return index;
  }

  addToEdge(index: number, count: number, ns: number): void {
    this.edgeCount[index]! += count;
    this.edgeNs[index]! += ns;
  }

  get isEmpty(): boolean {
    return this.totalsByTrack.size === 0 && this.edgeParent.length === 0;
  }

  emit(
    measurements: TableBuffer,
    edges: TableBuffer,
    frames: FrameRegistry,
    tracks: TrackLookup,
  ): void {
    for (const [track, totals] of this.totalsByTrack) {
      const info = tracks(track);
      for (let f = 0; f < totals.selfNs.length; f++) {
        if (totals.inclusiveCount[f] === 0 && totals.selfCount[f] === 0) continue;
        measurements.append({
          frame_id: frames.ids[f]!,
          metric: this.metric,
          unit: this.unit,
          self_value: totals.selfNs[f]!,
          inclusive_value: totals.inclusiveNs[f]!,
          self_samples: totals.selfCount[f]!,
          inclusive_samples: totals.inclusiveCount[f]!,
          process_name: info.processName,
          thread_name: info.threadName,
          track_id: info.id,
        });
      }
    }
    for (let e = 0; e < this.edgeParent.length; e++) {
      edges.append({
        metric: this.metric,
        parent_frame_id: frames.ids[this.edgeParent[e]!]!,
        child_frame_id: frames.ids[this.edgeChild[e]!]!,
        sample_count: this.edgeCount[e]!,
        duration_ns: this.edgeNs[e]!,
      });
    }
  }
}
