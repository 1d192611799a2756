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
import type { SequenceState } from "./sequence-state.ts";

export class PerfettoSamples {
  readonly measures: MeasureAccumulator;
  readonly stacks: StackTrie;
  count = 0;
  unresolved = 0;
  private readonly cpu: StackMeasures;
  /** The current sample's frames, root first (reused). */
  private readonly path: number[] = [];

  constructor(
    private readonly frames: FrameRegistry,
    private readonly strings: StringTable,
    stackSpill?: StackSpill,
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

  add(state: SequenceState, callstackIid: number, ns: number, track: number): void {
    const frameIds = state.callstacks.get(callstackIid);
    if (!frameIds || frameIds.length === 0) {
      this.unresolved++;
      return;
    }
    this.count++;
    const path = this.path;
    path.length = 0;
    for (const iid of frameIds) path.push(this.frameOf(state, iid));
    this.cpu.add(path, track, 1, 1, ns);
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
