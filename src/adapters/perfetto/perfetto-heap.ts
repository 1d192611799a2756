/**
 * heapprofd's native heap profiles in a Perfetto trace (ProfilePacket): each dump gives,
 * per process and heap, every callstack's totals since profiling began, possibly spread
 * over several packets of one sequence (`continued`). The last complete dump of each
 * process and heap is the profile: its callstacks become frames, measurements, call edges
 * and stacks in the metrics pprof heap profiles use (inuse_space, inuse_objects,
 * alloc_space, alloc_objects), on a track per process and heap. A dump taken at the heap's
 * peak (dump_at_max) gives in-use values only.
 */
import { StackMeasures } from "../common/stack-measures.ts";
import type { StackSpill } from "../common/stack-trie.ts";
import type { HeapDumpInput, HeapSampleInput } from "./packet-children.ts";
import type { PerfettoSamples } from "./perfetto-samples.ts";
import type { PerfettoTracks } from "./perfetto-tracks.ts";
import type { SequenceState } from "./sequence-state.ts";

/** A callstack's totals in one dump (summed should it appear twice), with its resolved frames. */
interface StackTotals extends Omit<HeapSampleInput, "callstack"> {
  frames: number[];
}

interface Dump {
  pid: number;
  heap: string | null;
  stacks: Map<number, StackTotals>;
}

export class PerfettoHeap {
  readonly inuseSpace: StackMeasures;
  readonly inuseObjects: StackMeasures;
  readonly allocSpace: StackMeasures;
  readonly allocObjects: StackMeasures;
  /** Complete dumps read (one per packet run that ends with continued = false). */
  dumps = 0;
  /**
   * Dumps still waiting for their continuation when the trace ended (used when nothing newer is
   * complete).
   */
  incomplete = 0;
  /** Heap samples whose callstack is not in the sequence's interned data. */
  unresolved = 0;
  /** Per packet sequence: the dump being read, per process and heap. */
  private readonly open = new Map<number, Map<string, Dump>>();
  /** Per process and heap: its last complete dump. */
  private readonly latest = new Map<string, Dump>();

  constructor(
    private readonly samples: PerfettoSamples,
    private readonly tracks: PerfettoTracks,
    spill?: StackSpill,
  ) {
    this.inuseSpace = new StackMeasures("inuse_space", "bytes", spill);
    this.inuseObjects = new StackMeasures("inuse_objects", "count", spill);
    this.allocSpace = new StackMeasures("alloc_space", "bytes", spill);
    this.allocObjects = new StackMeasures("alloc_objects", "count", spill);
  }

  get metrics(): StackMeasures[] {
    return [this.inuseSpace, this.inuseObjects, this.allocSpace, this.allocObjects];
  }

  /**
   * A ProfilePacket on `sequence`: its dumps' samples, resolved through the sequence's interned
   * callstacks now (its state may be cleared later).
   */
  profilePacket(
    state: SequenceState,
    dumps: HeapDumpInput[],
    sequence: number,
    continued: boolean,
  ): void {
    let reading = this.open.get(sequence);
    if (!reading) this.open.set(sequence, (reading = new Map()));
    for (const input of dumps) {
      const key = `${input.pid}|${input.heap ?? ""}`;
      let dump = reading.get(key);
      if (!dump) reading.set(key, (dump = { pid: input.pid, heap: input.heap, stacks: new Map() }));
      for (const s of input.samples) {
        let totals = dump.stacks.get(s.callstack);
        if (!totals) {
          const frames = this.samples.framesOf(state, s.callstack);
          if (frames === null) {
            this.unresolved++;
            continue;
          }
          totals = {
            frames,
            allocated: 0,
            freed: 0,
            allocCount: 0,
            freeCount: 0,
            max: null,
            maxCount: null,
          };
          dump.stacks.set(s.callstack, totals);
        }
        totals.allocated += s.allocated;
        totals.freed += s.freed;
        totals.allocCount += s.allocCount;
        totals.freeCount += s.freeCount;
        if (s.max !== null) totals.max = (totals.max ?? 0) + s.max;
        if (s.maxCount !== null) totals.maxCount = (totals.maxCount ?? 0) + s.maxCount;
      }
    }
    if (continued) return;
    for (const [key, dump] of reading) this.latest.set(key, dump);
    this.open.delete(sequence);
    this.dumps++;
  }

  /** Measures the last dump of each process and heap (call once every packet is read). */
  finish(): void {
    for (const reading of this.open.values()) {
      this.incomplete++;
      for (const [key, dump] of reading) if (!this.latest.has(key)) this.latest.set(key, dump);
    }
    this.open.clear();
    for (const dump of this.latest.values()) {
      const uuid = `heap:${dump.pid}:${dump.heap ?? ""}`;
      this.tracks.describe(uuid, {
        parent: null,
        name: dump.heap ?? "heap",
        pid: dump.pid,
        tid: null,
        processName: null,
        threadName: null,
      });
      const track = this.tracks.trackOf(uuid);
      for (const t of dump.stacks.values()) {
        const atMax = t.max !== null;
        const inuse = atMax ? t.max! : t.allocated - t.freed;
        const inuseCount = atMax ? (t.maxCount ?? 0) : t.allocCount - t.freeCount;
        if (inuse !== 0) this.inuseSpace.add(t.frames, track, 1, inuse);
        if (inuseCount !== 0) this.inuseObjects.add(t.frames, track, 1, inuseCount);
        if (!atMax && t.allocated !== 0) this.allocSpace.add(t.frames, track, 1, t.allocated);
        if (!atMax && t.allocCount !== 0) this.allocObjects.add(t.frames, track, 1, t.allocCount);
      }
    }
    this.latest.clear();
  }
}
