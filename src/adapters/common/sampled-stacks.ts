/**
 * Evidence of a sampled-stack profile read sample by sample (perf script, collapsed
 * stacks, speedscope): frames, tracks, and one StackMeasures per metric (or per pair of
 * twin metrics, always added together: DHAT's bytes and blocks). Formats only
 * say which frames a sample holds, on which track, and what it weighs; the measures,
 * edges and stacks come from the shared StackMeasures, so every sampled format counts
 * the same way. Given scratch space the stack tries spill (bounded memory), and the
 * streaming path writes `stacks` through the sink in chunks.
 */
import type { EvidenceSink, SpillSpace } from "../adapter.ts";
import type { FrameMetric } from "../../domain/evidence-schema.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { emptyTables } from "../../domain/normalized-evidence.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import type { EvidenceTableName } from "../../domain/evidence-schema.ts";
import { FrameRegistry } from "./frame-registry.ts";
import { writeStackChunks } from "./stack-chunks.ts";
import { StackMeasures } from "./stack-measures.ts";
import { deepStacksLimitation } from "./stack-trie.ts";
import { NsClock } from "./time-ns.ts";
import { SINGLE_TRACK, type TrackInfo } from "./track.ts";

export interface StackStorage {
  spill?: SpillSpace;
  maxStacksInMemory?: number;
}

export class SampledStacks {
  readonly frames = new FrameRegistry();
  /** Track 0 is the unnamed single track. */
  private readonly tracks: TrackInfo[] = [SINGLE_TRACK];
  private readonly trackByKey = new Map<string, number>();
  private readonly measured = new Map<FrameMetric, StackMeasures>();
  /** Sample times are ns after this base (see `setTimeBase`); 0 until a format sets one. */
  private clock = new NsClock(0);

  constructor(private readonly storage: StackStorage = {}) {}

  /**
   * Index of the track with this id, created on first sight; names can be given or improved later.
   */
  track(id: string, processName: string | null, threadName: string | null): number {
    let index = this.trackByKey.get(id);
    if (index === undefined) {
      index = this.tracks.push({ id, processName, threadName }) - 1;
      this.trackByKey.set(id, index);
    }
    return index;
  }

  /** Names a track's process once it is known (a process's name is its main thread's). */
  nameProcess(track: number, processName: string): void {
    const info = this.tracks[track]!;
    if (info.processName === null && track !== 0) this.tracks[track] = { ...info, processName };
  }

  /**
   * The microsecond that sample times (`firstRelNs`) count from: formats whose clocks
   * pass 2^53 ns (perf's, after 105 days up) give times relative to their first sample.
   */
  setTimeBase(baseUs: number): void {
    this.clock = new NsClock(baseUs);
  }

  get trackCount(): number {
    return this.tracks.length - 1;
  }

  /** The accumulator of one metric, created on first use. */
  metric(metric: FrameMetric, unit: string): StackMeasures {
    let m = this.measured.get(metric);
    if (!m) {
      m = new StackMeasures(metric, unit, this.spill());
      this.measured.set(metric, m);
    } else if (m.measures.metric !== metric)
      throw new Error(`${metric} is summed as the twin of ${m.measures.metric}`);
    return m;
  }

  /**
   * The accumulator of `metric` and its twin, created on first use: every add gives both their
   * values at once, and they are written as two metrics (stack-measures.ts).
   */
  twinMetrics(metric: FrameMetric, unit: string, twin: FrameMetric, twinUnit: string) {
    let m = this.measured.get(metric);
    if (!m) {
      m = new StackMeasures(metric, unit, this.spill(), { metric: twin, unit: twinUnit });
      if (this.measured.has(twin)) throw new Error(`${twin} is already summed on its own`);
      this.measured.set(metric, m);
      this.measured.set(twin, m);
    } else if (m.measures.metric !== metric || m.twin?.metric !== twin)
      throw new Error(`${metric} is already summed without ${twin} as its twin`);
    return m;
  }

  private spill() {
    return this.storage.spill
      ? { space: this.storage.spill, maxStacks: this.storage.maxStacksInMemory }
      : undefined;
  }

  get metrics(): FrameMetric[] {
    return [...this.measured.keys()];
  }

  /** Each accumulator once (a twin pair is one), in the order of their metrics. */
  private accumulators(): StackMeasures[] {
    return [...new Set(this.measured.values())];
  }

  /** What the import says about stack paths cut at MAX_STACK_FRAMES (stack-trie.ts). */
  deepStacksLimitation(): Limitation[] {
    return deepStacksLimitation(this.accumulators().map((m) => m.stacks));
  }

  /** Every table at once, for formats small enough to hold their stacks whole. */
  emitAll(): Record<EvidenceTableName, TableBuffer> {
    const tables = this.emitSmall();
    const lookup = (t: number) => this.tracks[t]!;
    for (const m of this.accumulators())
      m.stacks.emit(tables.stacks, this.frames, this.clock, lookup);
    return tables;
  }

  /**
   * The streaming path: the stacks written through `sink`, then frames, measurements and
   * edges, built whole.
   */
  async emitStreamed(
    sink: EvidenceSink,
  ): Promise<
    Pick<Record<EvidenceTableName, TableBuffer>, "frames" | "frame_measurements" | "call_edges">
  > {
    // Stacks first: the small tables' rows (a call edge per distinct caller and callee, which
    // a heap profile has hundreds of thousands of) are made once the stacks are written, not
    // held while their parts encode.
    await this.writeStacks(sink);
    const { frames, frame_measurements, call_edges } = this.emitSmall();
    return { frames, frame_measurements, call_edges };
  }

  /** Frames, measurements and edges; stacks are left to `writeStacks`. */
  private emitSmall(): Record<EvidenceTableName, TableBuffer> {
    const tables = emptyTables();
    this.frames.emit(tables.frames);
    const lookup = (t: number) => this.tracks[t]!;
    for (const m of this.accumulators())
      m.measures.emit(tables.frame_measurements, tables.call_edges, this.frames, lookup);
    return tables;
  }

  private async writeStacks(sink: EvidenceSink): Promise<void> {
    await writeStackChunks(
      sink,
      this.accumulators().map((m) => m.stacks),
      this.frames,
      this.clock,
      (t) => this.tracks[t]!,
    );
  }
}
