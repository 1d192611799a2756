/**
 * CPU samples of a Perfetto trace (Chrome's StreamingProfilePacket, Linux PerfSample):
 * interned callstacks (root frame first) → frames and `samples` (count) measurements,
 * call edges and stacks, per thread track. Counts, not durations: a sample's weight is not
 * in the trace, so none is invented.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";
import type { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { StackMeasures } from "../common/stack-measures.ts";
import type { StackSpill, StackTrie } from "../common/stack-trie.ts";
import type { StringTable } from "../common/string-table.ts";
import { languageOf } from "../common/source-language.ts";
import type { ResolvedCallstack, SequenceState } from "./sequence-state.ts";

/**
 * Frames of the paths waiting in `pending` from which they are added (a bound on the memory of
 * a trace whose every sample has a new callstack).
 */
const MAX_PENDING_FRAMES = 1 << 20;

/** Samples of one resolved path on one track, not yet added (see `add`). */
interface PendingPath {
  path: readonly number[];
  track: number;
  count: number;
  firstNs: number;
}

export class PerfettoSamples {
  readonly measures: MeasureAccumulator;
  readonly stacks: StackTrie;
  count = 0;
  unresolved = 0;
  private readonly cpu: StackMeasures;
  private pending: PendingPath[] = [];
  private pendingFrames = 0;
  /** Counts the flushes of `pending`: a resolved callstack's entries there are of one epoch. */
  private epoch = 0;

  constructor(
    private readonly frames: FrameRegistry,
    private readonly strings: StringTable,
    stackSpill?: StackSpill,
    /** Frames of waiting paths from which they are added (tests lower it). */
    private readonly maxPendingFrames = MAX_PENDING_FRAMES,
  ) {
    this.cpu = new StackMeasures("samples", "count", stackSpill);
    this.measures = this.cpu.measures;
    this.stacks = this.cpu.stacks;
  }

  /**
   * A StreamingProfilePacket: one callstack per sample, timestamps as µs deltas from the packet's.
   */
  streaming(
    state: SequenceState,
    callstacks: number[],
    deltasUs: number[],
    packetNs: number,
    track: number,
  ): void {
    let ns = packetNs;
    callstacks.forEach((iid, k) => {
      ns += (deltasUs[k] ?? 0) * 1000;
      this.add(state, iid, ns, track);
    });
  }

  /**
   * One sample. Samples of one resolved callstack on one track are summed and added together (in
   * the order each was first sampled, by `flush`), as a profile samples a few stacks many times:
   * a sample then costs a lookup, not a walk and add of its whole path. Counts are integers, so
   * the sums are the same in any order; the stacks, frames and call edges come out as when each
   * sample was added on its own.
   */
  add(state: SequenceState, callstackIid: number, ns: number, track: number): void {
    const frameIds = state.callstacks.get(callstackIid);
    if (!frameIds || frameIds.length === 0) {
      this.unresolved++;
      return;
    }
    this.count++;
    const known = this.resolved(state, callstackIid, frameIds);
    if (known.epoch !== this.epoch) {
      known.epoch = this.epoch;
      known.pending.clear();
    }
    let at = known.pending.get(track);
    if (at === undefined) {
      at = this.pending.length;
      this.pending.push({ path: known.path, track, count: 0, firstNs: Number.POSITIVE_INFINITY });
      known.pending.set(track, at);
      this.pendingFrames += known.path.length;
    }
    const p = this.pending[at]!;
    p.count++;
    if (ns < p.firstNs) p.firstNs = ns;
    if (this.pendingFrames > this.maxPendingFrames) this.flush();
  }

  /** Adds the samples waiting in `pending`; the measures and stacks are whole after it. */
  flush(): void {
    for (const p of this.pending) this.cpu.add(p.path, p.track, p.count, p.count, p.firstNs);
    this.pending = [];
    this.pendingFrames = 0;
    this.epoch++;
  }

  /**
   * Callstack `iid` as frames, root first: remembered in the sequence's state once every frame is
   * resolved (until the state is cleared or the callstack interned again).
   */
  private resolved(state: SequenceState, iid: number, frameIds: number[]): ResolvedCallstack {
    const known = state.resolvedCallstacks.get(iid);
    if (known !== undefined) return known;
    let final = true;
    const path = frameIds.map((f) => {
      const frame = this.frameOf(state, f);
      if (!state.registryFrames.has(f)) final = false;
      return frame;
    });
    const made: ResolvedCallstack = { path, epoch: -1, pending: new Map() };
    if (final) state.resolvedCallstacks.set(iid, made);
    return made;
  }

  /** The frames of interned callstack `iid`, root first (null: unknown or empty callstack). */
  framesOf(state: SequenceState, iid: number): number[] | null {
    const frameIds = state.callstacks.get(iid);
    return frameIds && frameIds.length > 0 ? frameIds.map((f) => this.frameOf(state, f)) : null;
  }

  private frameOf(state: SequenceState, iid: number): number {
    const known = state.registryFrames.get(iid);
    if (known !== undefined) return known;
    const frame = state.frames.get(iid);
    const module = frame ? (state.mappings.get(frame.mappingId) ?? null) : null;
    const nameId = frame ? state.functions.get(frame.functionNameId) : undefined;
    const name = nameId !== undefined ? this.strings.get(nameId) : null;
    const fn = name && name.length > 0 ? name : `0x${(frame?.relPc ?? 0n).toString(16)}`;
    const f = this.frames.intern(JSON.stringify(["perfetto", fn, module]), {
      language: languageOf(module),
      function: fn,
      module,
      file: null,
      line: null,
      column: null,
      symbolization: name ? "complete" : "absent",
    });
    // Only a defined frame is final: an iid used before its interned data arrives stays unresolved.
    if (frame) state.registryFrames.set(iid, f);
    return f;
  }
}
