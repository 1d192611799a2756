/**
 * CPU samples of a Perfetto trace (Chrome's StreamingProfilePacket, Linux PerfSample):
 * interned callstacks (root frame first) → frames and `samples` (count) measurements,
 * call edges and stacks, per thread track. Counts, not durations: a sample's weight is not
 * in the trace, so none is invented.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";
import { MeasureAccumulator } from "../common/measure-accumulator.ts";
import { ROOT_STACK, type StackSpill, StackTrie } from "../common/stack-trie.ts";
import type { StringTable } from "../common/string-table.ts";
import { languageOf } from "../pprof/pprof-frames.ts";
import type { SequenceState } from "./sequence-state.ts";

export class PerfettoSamples {
  readonly measures = new MeasureAccumulator("samples", "count");
  readonly stacks: StackTrie;
  count = 0;
  unresolved = 0;
  private readonly seen = new Map<number, number>();
  private readonly seenEdges = new Map<number, number>();

  constructor(
    private readonly frames: FrameRegistry,
    private readonly strings: StringTable,
    stackSpill?: StackSpill,
  ) {
    this.stacks = new StackTrie("samples", stackSpill);
  }

  /** A StreamingProfilePacket: one callstack per sample, timestamps as µs deltas from the packet's. */
  streaming(state: SequenceState, callstacks: number[], deltasUs: number[], packetNs: number, track: number): void {
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
    // A sample holds no stack index beyond this call, so the trie may spill here.
    this.stacks.spillIfFull();
    const stamp = ++this.count;
    const totals = this.measures.track(track);
    let stack = ROOT_STACK;
    let previous = -1;
    for (const iid of frameIds) {
      const f = this.frameOf(state, iid);
      if (this.seen.get(f) !== stamp) {
        this.seen.set(f, stamp);
        this.measures.addInclusive(totals, f, 1, 1);
      }
      if (previous >= 0) {
        const key = previous * 2 ** 26 + f;
        if (this.seenEdges.get(key) !== stamp) {
          this.seenEdges.set(key, stamp);
          this.measures.addEdge(previous, f, 1, 1);
        }
      }
      stack = this.stacks.child(stack, f);
      previous = f;
    }
    this.measures.addSelf(totals, previous, 1, 1);
    this.stacks.add(stack, 1, 1, ns, track);
  }

  /** The frames of interned callstack `iid`, root first (null: unknown or empty callstack). */
  framesOf(state: SequenceState, iid: number): number[] | null {
    const frameIds = state.callstacks.get(iid);
    return frameIds && frameIds.length > 0 ? frameIds.map((f) => this.frameOf(state, f)) : null;
  }

  private frameOf(state: SequenceState, iid: number): number {
    const frame = state.frames.get(iid);
    const module = frame ? (state.mappings.get(frame.mappingId) ?? null) : null;
    const nameId = frame ? state.functions.get(frame.functionNameId) : undefined;
    const name = nameId !== undefined ? this.strings.get(nameId) : null;
    const fn = name && name.length > 0 ? name : `0x${(frame?.relPc ?? 0n).toString(16)}`;
    return this.frames.intern(JSON.stringify(["perfetto", fn, module]), {
      language: languageOf(module), function: fn, module, file: null, line: null, column: null,
      symbolization: name ? "complete" : "absent",
    });
  }
}
