/**
 * Accumulates one metric's per-frame measurements (per track) and call edges, then
 * writes them as `frame_measurements` and `call_edges` rows. Values are summed in dense
 * arrays indexed by frame, so the hot loops never allocate.
 *
 * It can also carry a twin metric: one that always gets the same (frame, edge, count) adds
 * with a value of its own (a heap profile's objects beside its bytes). The twin shares the
 * frame index, the edge index and the counts, so a stack is looked up once for both, and
 * only its values are summed apart; it is written right after the first metric, row for
 * row as an accumulator of its own would write it.
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
  /** The twin metric's values (empty without a twin). */
  twinSelf: number[] = [];
  twinInclusive: number[] = [];

  constructor(private readonly twin = false) {}

  ensure(frame: number): void {
    for (let i = this.selfNs.length; i <= frame; i++) {
      this.selfNs.push(0);
      this.inclusiveNs.push(0);
      this.selfCount.push(0);
      this.inclusiveCount.push(0);
      if (this.twin) {
        this.twinSelf.push(0);
        this.twinInclusive.push(0);
      }
    }
  }
}

/** One metric's sums as plain data (MeasureAccumulator `handOver`, `adopt`). */
export interface MeasureParts {
  tracks: {
    track: number;
    selfNs: number[];
    inclusiveNs: number[];
    selfCount: number[];
    inclusiveCount: number[];
  }[];
  edgeParent: number[];
  edgeChild: number[];
  edgeCount: number[];
  edgeNs: number[];
}

/** A second metric summed beside the first from the same adds (see MeasureAccumulator). */
export interface TwinMetric {
  metric: FrameMetric;
  unit: string;
}

export class MeasureAccumulator {
  readonly metric: FrameMetric;
  /** Unit of the values (`ns` for time metrics, `bytes` or `count` for others). */
  readonly unit: string;
  private readonly totalsByTrack = new Map<number, FrameTotals>();
  private edgeIndex = new IntPairMap();
  /** False after `adopt`: the edge index is built again on the next `edge`. */
  private edgesIndexed = true;
  private edgeParent: number[] = [];
  private edgeChild: number[] = [];
  private edgeCount: number[] = [];
  private edgeNs: number[] = [];
  private readonly edgeTwin: number[] = [];

  constructor(
    metric: FrameMetric,
    unit = "ns",
    readonly twin: TwinMetric | null = null,
  ) {
    this.metric = metric;
    this.unit = unit;
  }

  /** Totals for a track, to be filled through `addSelf` / `addInclusive`. */
  track(track: number): FrameTotals {
    let totals = this.totalsByTrack.get(track);
    if (!totals) {
      totals = new FrameTotals(this.twin !== null);
      this.totalsByTrack.set(track, totals);
    }
    return totals;
  }

  /** `twinValue` is the twin metric's value of the same add (ignored without a twin). */
  addSelf(totals: FrameTotals, frame: number, count: number, ns: number, twinValue = 0): void {
    if (frame >= totals.selfNs.length) totals.ensure(frame);
    totals.selfCount[frame]! += count;
    totals.selfNs[frame]! += ns;
    if (this.twin !== null) totals.twinSelf[frame]! += twinValue;
  }

  addInclusive(totals: FrameTotals, frame: number, count: number, ns: number, twinValue = 0): void {
    if (frame >= totals.selfNs.length) totals.ensure(frame);
    totals.inclusiveCount[frame]! += count;
    totals.inclusiveNs[frame]! += ns;
    if (this.twin !== null) totals.twinInclusive[frame]! += twinValue;
  }

  addEdge(parent: number, child: number, count: number, ns: number): void {
    this.addToEdge(this.edge(parent, child), count, ns);
  }

  /** The dense index of the parent → child edge, created (with zero totals) on first sight. */
  edge(parent: number, child: number): number {
    if (!this.edgesIndexed) this.reindexEdges();
    let index = this.edgeIndex.get(parent, child);
    if (index < 0) {
      index = this.edgeParent.length;
      this.edgeIndex.set(parent, child, index);
      this.edgeParent.push(parent);
      this.edgeChild.push(child);
      this.edgeCount.push(0);
      this.edgeNs.push(0);
      if (this.twin !== null) this.edgeTwin.push(0);
    }
    return index;
  }

  private reindexEdges(): void {
    this.edgeIndex = new IntPairMap();
    for (let e = 0; e < this.edgeParent.length; e++)
      this.edgeIndex.set(this.edgeParent[e]!, this.edgeChild[e]!, e);
    this.edgesIndexed = true;
  }

  addToEdge(index: number, count: number, ns: number, twinValue = 0): void {
    this.edgeCount[index]! += count;
    this.edgeNs[index]! += ns;
    if (this.twin !== null) this.edgeTwin[index]! += twinValue;
  }

  /**
   * The sums as plain data, for another accumulator of this metric to take (`adopt`), on another
   * thread say. Without a twin only.
   */
  handOver(): MeasureParts {
    if (this.twin !== null)
      throw new Error(`${this.metric}: a twin accumulator is not handed over`);
    return {
      tracks: [...this.totalsByTrack].map(([track, t]) => ({
        track,
        selfNs: t.selfNs,
        inclusiveNs: t.inclusiveNs,
        selfCount: t.selfCount,
        inclusiveCount: t.inclusiveCount,
      })),
      edgeParent: this.edgeParent,
      edgeChild: this.edgeChild,
      edgeCount: this.edgeCount,
      edgeNs: this.edgeNs,
    };
  }

  /** Takes the sums another accumulator handed over; this one must be empty. */
  adopt(parts: MeasureParts): void {
    if (!this.isEmpty) throw new Error(`${this.metric}: only an empty accumulator adopts`);
    for (const t of parts.tracks) {
      const totals = this.track(t.track);
      totals.selfNs = t.selfNs;
      totals.inclusiveNs = t.inclusiveNs;
      totals.selfCount = t.selfCount;
      totals.inclusiveCount = t.inclusiveCount;
    }
    this.edgeParent = parts.edgeParent;
    this.edgeChild = parts.edgeChild;
    this.edgeCount = parts.edgeCount;
    this.edgeNs = parts.edgeNs;
    // Looked up again only if more edges come; output does not need it.
    this.edgesIndexed = false;
  }

  get isEmpty(): boolean {
    return this.totalsByTrack.size === 0 && this.edgeParent.length === 0;
  }

  /**
   * Writes the metric's rows, then its twin's (each table gets them one metric after the
   * other).
   */
  emit(
    measurements: TableBuffer,
    edges: TableBuffer,
    frames: FrameRegistry,
    tracks: TrackLookup,
  ): void {
    this.emitMetric(measurements, edges, frames, tracks, false);
    if (this.twin !== null) this.emitMetric(measurements, edges, frames, tracks, true);
  }

  private emitMetric(
    measurements: TableBuffer,
    edges: TableBuffer,
    frames: FrameRegistry,
    tracks: TrackLookup,
    twin: boolean,
  ): void {
    const metric = twin ? this.twin!.metric : this.metric;
    const unit = twin ? this.twin!.unit : this.unit;
    const edgeValues = twin ? this.edgeTwin : this.edgeNs;
    for (const [track, totals] of this.totalsByTrack) {
      const selfValues = twin ? totals.twinSelf : totals.selfNs;
      const inclusiveValues = twin ? totals.twinInclusive : totals.inclusiveNs;
      const info = tracks(track);
      for (let f = 0; f < totals.selfNs.length; f++) {
        if (totals.inclusiveCount[f] === 0 && totals.selfCount[f] === 0) continue;
        measurements.append({
          frame_id: frames.ids[f]!,
          metric,
          unit,
          self_value: selfValues[f]!,
          inclusive_value: inclusiveValues[f]!,
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
        metric,
        parent_frame_id: frames.ids[this.edgeParent[e]!]!,
        child_frame_id: frames.ids[this.edgeChild[e]!]!,
        sample_count: this.edgeCount[e]!,
        duration_ns: edgeValues[e]!,
      });
    }
  }
}
