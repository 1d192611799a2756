/**
 * The repeated parts of one packet (interned entries, clocks, categories, annotations,
 * profile samples, descriptors, process stats), collected as their records arrive, just before the
 * packet's own record.
 */
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { PacketAnnotations } from "./packet-annotations.ts";
import { HD, HS, R, T } from "./trace-program.ts";

/**
 * One callstack's totals in a heapprofd dump (cumulative since profiling began); max: the
 * dump_at_max form.
 */
export interface HeapSampleInput {
  callstack: number;
  allocated: number;
  freed: number;
  allocCount: number;
  freeCount: number;
  max: number | null;
  maxCount: number | null;
}

export interface HeapDumpInput {
  pid: number;
  heap: string | null;
  samples: HeapSampleInput[];
}

export interface TrackDescriptorInput {
  counter: { multiplier: number; incremental: boolean; threadTime: boolean } | null;
  uuid: string;
  parent: string | null;
  name: string | null;
  pid: number | null;
  tid: number | null;
  processName: string | null;
  /**
   * The process_name is the process's command line (Perfetto's default when the producer names
   * none).
   */
  processNameIsCommandLine?: boolean;
  threadName: string | null;
}

/** CounterDescriptor.BuiltinCounterType COUNTER_THREAD_TIME_NS (counter_descriptor.proto). */
const COUNTER_THREAD_TIME_NS = 1;

export class PacketChildren {
  owner = -1;
  clocks: { id: number; value: number; incremental: boolean; unitNs: number }[] = [];
  categoryIids: number[] = [];
  categoryNames: string[] = [];
  readonly annotations = new PacketAnnotations();
  interned: { record: number; iid: number; value: string | null }[] = [];
  frames: { iid: number; functionNameId: number; mappingId: number; relPc: bigint }[] = [];
  callstacks: { iid: number; frameIds: number[] }[] = [];
  mappings: { iid: number; pathIds: number[] }[] = [];
  sampleCallstacks: number[] = [];
  sampleDeltasUs: number[] = [];
  tracks: TrackDescriptorInput[] = [];
  processes: { pid: number; name: string | null }[] = [];
  threads: { pid: number; tid: number; name: string | null }[] = [];
  /** process_stats entries: pid and the slots 1..9 (null when absent). */
  processStats: { pid: number; values: (number | null)[] }[] = [];
  /**
   * Extra counter values of the track event and their track uuids (ints, then doubles), and the
   * defaults' uuids.
   */
  extraValues: number[] = [];
  extraUuids: string[] = [];
  extraDoubleValues: number[] = [];
  extraDoubleUuids: string[] = [];
  defaultExtraUuids: string[] = [];
  defaultExtraDoubleUuids: string[] = [];
  heapDumps: HeapDumpInput[] = [];
  private heapSamples: HeapSampleInput[] = [];
  private frameIds: number[] = [];
  private dirty = false;
  private pathIds: number[] = [];

  reset(owner: number): void {
    this.owner = owner;
    if (!this.dirty) return;
    // Cleared in place (no allocation per packet); consumers copy what they keep.
    if (this.clocks.length > 0) this.clocks.length = 0;
    if (this.categoryIids.length > 0) this.categoryIids.length = 0;
    if (this.categoryNames.length > 0) this.categoryNames.length = 0;
    if (this.annotations.length > 0) this.annotations.clear();
    if (this.interned.length > 0) this.interned.length = 0;
    if (this.frames.length > 0) this.frames.length = 0;
    if (this.callstacks.length > 0) this.callstacks.length = 0;
    if (this.mappings.length > 0) this.mappings.length = 0;
    if (this.sampleCallstacks.length > 0) this.sampleCallstacks.length = 0;
    if (this.sampleDeltasUs.length > 0) this.sampleDeltasUs.length = 0;
    if (this.tracks.length > 0) this.tracks.length = 0;
    if (this.processes.length > 0) this.processes.length = 0;
    if (this.threads.length > 0) this.threads.length = 0;
    if (this.processStats.length > 0) this.processStats.length = 0;
    if (this.extraValues.length > 0) this.extraValues.length = 0;
    if (this.extraUuids.length > 0) this.extraUuids.length = 0;
    if (this.extraDoubleValues.length > 0) this.extraDoubleValues.length = 0;
    if (this.extraDoubleUuids.length > 0) this.extraDoubleUuids.length = 0;
    if (this.defaultExtraUuids.length > 0) this.defaultExtraUuids.length = 0;
    if (this.defaultExtraDoubleUuids.length > 0) this.defaultExtraDoubleUuids.length = 0;
    if (this.heapDumps.length > 0) this.heapDumps = [];
    this.dirty = false;
  }

  /** Takes a child record; false when the record is not a packet's child. */
  add(b: ProtoBatch, r: number, type: number): boolean {
    // Grandchildren (a callstack's frame ids, a mapping's path ids) precede their parent.
    if (type === R.I_FRAME_ID) return (void this.frameIds.push(b.num(r, 0)), true);
    if (type === R.I_MAPPING_PATH_ID) return (void this.pathIds.push(b.num(r, 0)), true);
    if (type === R.HEAP_SAMPLE) {
      const num = (slot: number) => (b.has(r, slot) ? b.num(r, slot) : 0);
      this.heapSamples.push({
        callstack: num(HS.CALLSTACK),
        allocated: num(HS.ALLOCATED),
        freed: num(HS.FREED),
        allocCount: num(HS.ALLOC_COUNT),
        freeCount: num(HS.FREE_COUNT),
        max: b.has(r, HS.MAX) ? b.num(r, HS.MAX) : null,
        maxCount: b.has(r, HS.MAX_COUNT) ? b.num(r, HS.MAX_COUNT) : null,
      });
      return true;
    }
    if (b.parent(r) !== this.owner) this.reset(b.parent(r));
    this.dirty = true;
    switch (type) {
      case R.I_CALLSTACK:
        this.callstacks.push({ iid: b.num(r, 0), frameIds: this.frameIds });
        this.frameIds = [];
        return true;
      case R.I_MAPPING:
        this.mappings.push({ iid: b.num(r, 0), pathIds: this.pathIds });
        this.pathIds = [];
        return true;
      case R.HEAP_DUMP:
        this.heapDumps.push({
          pid: b.num(r, HD.PID),
          heap: b.string(r, HD.HEAP_NAME),
          samples: this.heapSamples,
        });
        this.heapSamples = [];
        return true;
      case R.CLOCK:
        this.clocks.push({
          id: b.num(r, 0),
          value: b.num(r, 1),
          incremental: b.num(r, 2) !== 0,
          unitNs: b.has(r, 3) ? b.num(r, 3) : 1,
        });
        return true;
      case R.CAT_IID:
        this.categoryIids.push(b.num(r, 0));
        return true;
      case R.CAT_NAME:
        this.categoryNames.push(b.string(r, 0) ?? "");
        return true;
      case R.ANNOTATION: {
        // Copied from the scanner's memory without a view of it (see PacketAnnotations); a
        // record without the bytes is an empty annotation.
        const at = b.bytesAt(r, 0);
        this.annotations.add(b.u8, Math.max(at, 0), at < 0 ? 0 : b.length(r, 0));
        return true;
      }
      case R.I_CATEGORY:
      case R.I_NAME:
      case R.I_ANNOTATION_NAME:
      case R.I_FUNCTION:
      case R.I_MAPPING_PATH:
      case R.I_STRING_VALUE:
      case R.PROFILE_STRING:
        this.interned.push({ record: type, iid: b.num(r, 0), value: b.string(r, 1) });
        return true;
      case R.I_FRAME:
        this.frames.push({
          iid: b.num(r, 0),
          functionNameId: b.num(r, 1),
          mappingId: b.num(r, 2),
          relPc: b.ubig(r, 3),
        });
        return true;
      case R.SP_CALLSTACK:
        this.sampleCallstacks.push(b.num(r, 0));
        return true;
      case R.SP_DELTA:
        this.sampleDeltasUs.push(b.num(r, 0));
        return true;
      case R.EXTRA_VALUE:
        this.extraValues.push(b.num(r, 0));
        return true;
      case R.EXTRA_DOUBLE_VALUE:
        this.extraDoubleValues.push(b.double(r, 0));
        return true;
      case R.EXTRA_UUID:
        this.extraUuids.push(uuidText(b, r, 0));
        return true;
      case R.EXTRA_DOUBLE_UUID:
        this.extraDoubleUuids.push(uuidText(b, r, 0));
        return true;
      case R.DEFAULT_EXTRA_UUID:
        this.defaultExtraUuids.push(uuidText(b, r, 0));
        return true;
      case R.DEFAULT_EXTRA_DOUBLE_UUID:
        this.defaultExtraDoubleUuids.push(uuidText(b, r, 0));
        return true;
      case R.TRACK:
        if (!b.has(r, T.UUID)) return true;
        this.tracks.push({
          counter: b.has(r, T.COUNTER)
            ? {
                multiplier: b.has(r, T.COUNTER_MULTIPLIER) ? b.num(r, T.COUNTER_MULTIPLIER) : 1,
                incremental: b.num(r, T.COUNTER_INCREMENTAL) !== 0,
                threadTime: b.num(r, T.COUNTER_TYPE) === COUNTER_THREAD_TIME_NS,
              }
            : null,
          uuid: b.ubig(r, T.UUID).toString(),
          parent: b.has(r, T.PARENT) ? b.ubig(r, T.PARENT).toString() : null,
          name: b.string(r, T.NAME) ?? b.string(r, T.STATIC_NAME),
          pid: b.has(r, T.PID)
            ? b.num(r, T.PID)
            : b.has(r, T.THREAD_PID)
              ? b.num(r, T.THREAD_PID)
              : null,
          tid: b.has(r, T.TID) ? b.num(r, T.TID) : null,
          processName: b.string(r, T.PROCESS_NAME),
          threadName: b.string(r, T.THREAD_NAME),
          processNameIsCommandLine:
            b.has(r, T.PROCESS_CMDLINE) &&
            b.string(r, T.PROCESS_CMDLINE) === b.string(r, T.PROCESS_NAME),
        });
        return true;
      case R.PROCESS:
        this.processes.push({ pid: b.num(r, 0), name: b.string(r, 1) });
        return true;
      case R.THREAD:
        this.threads.push({ pid: b.num(r, 0), tid: b.num(r, 1), name: b.string(r, 2) });
        return true;
      case R.PS_PROCESS: {
        const values: (number | null)[] = [];
        // oom_score_adj (slot 9) is an int64: negative values arrive as 64-bit two's complement,
        // which num reads signed.
        for (let slot = 1; slot <= 9; slot++) values.push(b.has(r, slot) ? b.num(r, slot) : null);
        this.processStats.push({ pid: b.num(r, 0), values });
        return true;
      }
    }
    return false;
  }

  mine(serial: number): boolean {
    return serial === this.owner;
  }
}

/**
 * A uint64 slot (a track uuid) as its decimal text: through a double below 2^53, as most uuids
 * are, without a bigint per value (extra counter uuids can come with every event).
 */
export function uuidText(b: ProtoBatch, r: number, slot: number): string {
  const high = b.high(r, slot);
  return high >= 0 && high < 0x20_0000 ? String(b.num(r, slot)) : b.ubig(r, slot).toString();
}
