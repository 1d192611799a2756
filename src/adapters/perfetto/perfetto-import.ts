/**
 * Perfetto TracePacket stream → trace event columns (slices, instants, counters, with
 * per-sequence interning, packet defaults and clocks resolved) and CPU sample stacks.
 * Fed record batches by the WASM scanner; `finish` nests slices and measures them with
 * the same passes as Chrome JSON traces, so hotspots, callers/callees and trace windows
 * work alike on both.
 */
import { FrameRegistry } from "../common/frame-registry.ts";
import {
  KIND_BEGIN,
  KIND_END,
  KIND_EVENT,
  KIND_COMPLETE,
  noScanCounts,
} from "../trace-events/event-kinds.ts";
import { SliceFrames } from "../trace-events/slice-frames.ts";
import { CounterRowWriter } from "../trace-events/counter-row-writer.ts";
import type { EventSpool } from "../trace-events/event-spool.ts";
import type { HostStrings } from "../wasm/host-strings.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { CompressedPackets } from "./compressed-packets.ts";
import { PERFETTO_FORMAT } from "./debug-annotations.ts";
import { eventArgs, storeEventArgs } from "./event-args.ts";
import { ByteBuf } from "../common/json-bytes.ts";
import { StringTable } from "../common/string-table.ts";
import { tooLarge } from "../json-guard.ts";
import type { PerfettoEventSink } from "./event-sink.ts";
import { FtraceMarks } from "./ftrace-marks.ts";
import { PerfettoCounters } from "./perfetto-counters.ts";
import { applyChildren } from "./apply-children.ts";
import { EventCategories } from "./event-categories.ts";
import { NO_ANNOTATIONS } from "./packet-annotations.ts";
import { PacketChildren } from "./packet-children.ts";
import { PerfettoTracks } from "./perfetto-tracks.ts";
import type { StackSpill } from "../common/stack-trie.ts";
import { PerfettoSamples } from "./perfetto-samples.ts";
import { ChromeV8Profiles } from "./chrome-v8-profiles.ts";
import { PerfettoHeap } from "./perfetto-heap.ts";
import { ClockDomain, SequenceState } from "./sequence-state.ts";
import { P, R } from "./trace-program.ts";

const TYPE_BEGIN = 1,
  TYPE_END = 2,
  TYPE_INSTANT = 3,
  TYPE_COUNTER = 4;
const SEQ_INCREMENTAL_STATE_CLEARED = 1;
/**
 * The longest args a plain reading stands for: `{"value":` and `}` around a number's shortest
 * round-trip text (at most 24 characters, as in -1.2345678901234567e-308) or `null`.
 */
const READING_ARGS_BYTES = 34;

export class PerfettoImport implements PerfettoEventSink {
  readonly frames = new FrameRegistry();
  readonly tracks = new PerfettoTracks();
  readonly domain = new ClockDomain();
  readonly samples: PerfettoSamples;
  readonly heap: PerfettoHeap;
  readonly counts = noScanCounts();
  /** Per track: the latest end of its events. */
  readonly trackEndNs: number[] = [];
  packets = 0;
  unknownClockEvents = 0;
  truncatedArgs = 0;
  /** Track events with flow links, which are not imported (see the limitation). */
  flowEvents = 0;
  private readonly sliceFrames = new SliceFrames(this.frames);
  private readonly text = (id: number): string => this.strings.get(id);
  private readonly sequences = new Map<number, SequenceState>();
  /** The sequence of the packet before: packets of one sequence mostly come in runs. */
  private lastSequenceId = -1;
  private lastSequence: SequenceState | null = null;
  private readonly children = new PacketChildren();
  private readonly phIds = new Map<string, number>();

  /** Strings of the columns (names, categories, phases), host-side: scanner ids are mapped in. */
  readonly strings = new StringTable();
  private readonly categories = new EventCategories(this.strings);
  /**
   * Per scanner (the stream's, and the one expanding compressed packets): its string id → local id.
   */
  private readonly local = new Map<HostStrings, Map<number, number>>();
  readonly ftrace: FtraceMarks;
  readonly counters: PerfettoCounters;
  readonly compressed: CompressedPackets;
  readonly v8Profiles: ChromeV8Profiles;
  /**
   * Counter readings with nothing but a value, as `trace_counters` rows (null: the per-event args
   * limit is below a reading's `{"value":N}`, so readings stay events, cut and flagged as args are).
   */
  readonly readings: CounterRowWriter | null;
  /** Compressed groups of the packet being read, expanded once its own record is handled. */
  private readonly groups: Uint8Array[] = [];
  private readonly expandBatch = (b: ProtoBatch) => this.onBatch(b);

  constructor(
    private readonly maxArgsBytes: number,
    private readonly maxEvents: number,
    /** Where track events wait until they are nested (see trace-events/). */
    readonly spool: EventSpool,
    maxDepth: number,
    stackSpill?: StackSpill,
  ) {
    this.samples = new PerfettoSamples(this.frames, this.strings, stackSpill);
    this.heap = new PerfettoHeap(this.samples, this.tracks, stackSpill);
    this.ftrace = new FtraceMarks(this.tracks, this.domain, this);
    this.counters = new PerfettoCounters(this.tracks, this);
    this.readings = maxArgsBytes >= READING_ARGS_BYTES ? new CounterRowWriter(this.strings) : null;
    this.compressed = new CompressedPackets(maxDepth);
    this.v8Profiles = new ChromeV8Profiles(this.domain, maxEvents, (id) => this.strings.get(id));
  }

  /** The local id of a string id of the scanner that produced `b` (-1 stays -1). */
  private fromScanner(b: ProtoBatch, id: number): number {
    if (id < 0) return -1;
    let ids = this.local.get(b.strings);
    if (ids === undefined) {
      ids = new Map();
      this.local.set(b.strings, ids);
    }
    let local = ids.get(id);
    if (local === undefined) {
      local = this.strings.id(b.strings.get(id));
      ids.set(id, local);
    }
    return local;
  }

  onBatch(b: ProtoBatch): void {
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (type === R.PACKET) {
        this.packet(b, r);
        if (this.groups.length > 0) this.expandGroups();
      } else if (type === R.FTRACE) this.ftrace.event(b, r);
      else if (type === R.COMPRESSED) this.groups.push(b.bytes(r, 0).slice());
      else if (type === R.PT_PROCESS || type === R.PT_CMDLINE || type === R.PT_THREAD)
        this.ftrace.processTree(b, r, type);
      else if (type !== R.TRACE) this.children.add(b, r, type);
    }
  }

  /** The packets of compressed groups, in place of the packet that carried them. */
  private expandGroups(): void {
    const groups = this.groups.splice(0);
    this.children.reset(-1);
    for (const group of groups) this.compressed.expand(group, this.expandBatch);
    this.children.reset(-1);
  }

  private sequence(id: number): SequenceState {
    if (id === this.lastSequenceId) return this.lastSequence!;
    let s = this.sequences.get(id);
    if (!s) {
      s = new SequenceState();
      this.sequences.set(id, s);
    }
    this.lastSequenceId = id;
    this.lastSequence = s;
    return s;
  }

  private packet(b: ProtoBatch, r: number): void {
    this.packets++;
    const c = this.children.mine(b.serial(r)) ? this.children : null;
    const sequence = b.num(r, P.SEQUENCE);
    const state = this.sequence(sequence);
    if (
      (b.num(r, P.SEQUENCE_FLAGS) & SEQ_INCREMENTAL_STATE_CLEARED) !== 0 ||
      b.num(r, P.STATE_CLEARED) !== 0
    ) {
      // Its incremental counters restart too (SequenceState.counterTotals).
      state.clear();
    }
    this.ftrace.packet(b, r, sequence);
    if (b.has(r, P.DEFAULT_CLOCK_ID)) state.defaultClockId = b.num(r, P.DEFAULT_CLOCK_ID);
    if (b.has(r, P.DEFAULT_TRACK_UUID))
      state.defaultTrackUuid = b.ubig(r, P.DEFAULT_TRACK_UUID).toString();
    if (c)
      applyChildren(c, state, b.has(r, P.PRIMARY_CLOCK) ? b.num(r, P.PRIMARY_CLOCK) : null, this);
    if (b.has(r, P.PROFILE_PACKET))
      this.heap.profilePacket(
        state,
        c?.heapDumps ?? [],
        sequence,
        b.num(r, P.PROFILE_CONTINUED) !== 0,
      );
    const hasTs = b.has(r, P.TIMESTAMP);
    const ns = hasTs
      ? this.timestampNs(
          state,
          b.has(r, P.CLOCK_ID) ? b.num(r, P.CLOCK_ID) : null,
          b.num(r, P.TIMESTAMP),
        )
      : null;
    if (b.has(r, P.TRACK_EVENT)) this.trackEvent(b, r, state, c, ns);
    if (c && c.processStats.length > 0 && ns !== null) this.counters.processStats(c, ns);
    if (c && c.sampleCallstacks.length > 0 && ns !== null)
      this.samples.streaming(
        state,
        c.sampleCallstacks,
        c.sampleDeltasUs,
        ns,
        this.sampleTrack(state, b.num(r, P.SEQUENCE)),
      );
    if (b.has(r, P.PERF_CALLSTACK) && ns !== null) {
      const pid = b.num(r, P.PERF_PID);
      const tid = b.num(r, P.PERF_TID);
      const uuid = `perf:${pid}:${tid}`;
      this.tracks.describe(uuid, {
        parent: null,
        name: null,
        pid,
        tid,
        processName: null,
        threadName: null,
      });
      this.samples.add(state, b.num(r, P.PERF_CALLSTACK), ns, this.tracks.trackOf(uuid));
    }
    if (c) this.children.reset(-1);
  }

  /** A packet timestamp in ns of the trace's primary clock (null: unusable clock). */
  private timestampNs(state: SequenceState, packetClock: number | null, ts: number): number | null {
    const clockId = packetClock ?? state.defaultClockId ?? 6;
    if (clockId < 64) return this.domain.toPrimary(clockId, ts);
    const clock = state.clocks.get(clockId);
    if (!clock) {
      this.unknownClockEvents++;
      return null;
    }
    const value = clock.incremental ? (clock.last += ts) : ts;
    return this.domain.toPrimary(clock.refClock, clock.refNs + (value - clock.base) * clock.unitNs);
  }

  private sampleTrack(state: SequenceState, sequence: number): number {
    if (state.threadTrack !== null) return state.threadTrack;
    return this.tracks.trackOf(state.defaultTrackUuid ?? `sequence:${sequence}`);
  }

  intern(value: string): number {
    return this.strings.id(value);
  }

  private phId(ph: string): number {
    let id = this.phIds.get(ph);
    if (id === undefined) {
      id = this.intern(ph);
      this.phIds.set(ph, id);
    }
    return id;
  }

  private trackEvent(
    b: ProtoBatch,
    r: number,
    state: SequenceState,
    c: PacketChildren | null,
    packetNs: number | null,
  ): void {
    let ns = packetNs;
    if (b.has(r, P.ABSOLUTE_US)) ns = this.domain.toPrimary(3, b.num(r, P.ABSOLUTE_US) * 1000);
    if (ns === null) {
      // Dropped, but it keeps its event_index (events are numbered in stream order).
      this.addEvent();
      this.counts.missingTs++;
      return;
    }
    let type = b.has(r, P.TYPE) ? b.num(r, P.TYPE) : 0;
    let ph: string;
    if (type === 0 && b.has(r, P.LEGACY_PHASE)) ph = String.fromCharCode(b.num(r, P.LEGACY_PHASE));
    else
      ph = type === TYPE_BEGIN ? "B" : type === TYPE_END ? "E" : type === TYPE_COUNTER ? "C" : "I";
    if (ph === "B") type = TYPE_BEGIN;
    else if (ph === "E") type = TYPE_END;
    else if (type === 0) type = ph === "X" ? -1 : TYPE_INSTANT;
    // A legacy event (one with a phase) whose track_uuid is 0, as Chrome writes its marks and
    // V8 profile events, is on its sequence's thread, as when the uuid is absent; Trace
    // Processor reads it so (a typed event's 0 stays the default track, as there).
    const ownTrack =
      b.has(r, P.TRACK_UUID) && (b.num(r, P.TRACK_UUID) !== 0 || !b.has(r, P.LEGACY_PHASE));
    const t = ownTrack ? this.trackOfUuid(b, r) : this.sequenceTrack(b, r, state);
    let nameId = b.has(r, P.NAME)
      ? this.fromScanner(b, b.stringId(r, P.NAME))
      : (state.names.get(b.num(r, b.has(r, P.NAME_IID) ? P.NAME_IID : P.LEGACY_NAME_IID)) ?? -1);
    // Counter events are named by their track, as in Trace Processor.
    if (type === TYPE_COUNTER && nameId < 0) nameId = this.counters.trackNameId(t);
    const threadNs =
      c && (c.extraValues.length > 0 || c.extraDoubleValues.length > 0)
        ? this.counters.extra(c, state, ns)
        : Number.NaN;
    const kind =
      type === TYPE_BEGIN
        ? KIND_BEGIN
        : type === TYPE_END
          ? KIND_END
          : type === -1
            ? KIND_COMPLETE
            : KIND_EVENT;
    const counter =
      type === TYPE_COUNTER
        ? this.counters.value(
            t,
            // num: Number(big) without the bigint (the same double, rounded once from the int64).
            b.has(r, P.DOUBLE_COUNTER) ? b.double(r, P.DOUBLE_COUNTER) : b.num(r, P.COUNTER),
            state,
          )
        : undefined;
    if (b.has(r, P.FLOW)) this.flowEvents++;
    const category = this.categories.of(c, state);
    // A reading with nothing but its value (no category, no annotations) is a trace_counters row.
    if (
      counter !== undefined &&
      ph === "C" &&
      category < 0 &&
      (c?.annotations.length ?? 0) === 0 &&
      !this.v8Profiles.carries(nameId) &&
      this.counterReading(t, ns, nameId, counter)
    )
      return;
    const args =
      kind !== KIND_END
        ? eventArgs(c?.annotations ?? NO_ANNOTATIONS, state, counter, this.argsBuf)
        : null;
    if (this.v8Profiles.carries(nameId)) {
      this.v8Profiles.event(
        this.strings.get(nameId),
        c?.annotations.views() ?? [],
        state,
        t,
        ns,
        b.has(r, P.LEGACY_ID) ? b.ubig(r, P.LEGACY_ID).toString() : "",
      );
    }
    this.spoolEvent(
      t,
      ns,
      kind,
      nameId,
      ph,
      args,
      category,
      kind === KIND_COMPLETE ? Math.max(0, b.num(r, P.LEGACY_DURATION_US) * 1000) : 0,
      kind === KIND_BEGIN || kind === KIND_END ? threadNs : Number.NaN,
    );
  }

  /** The track of a sequence's events that name none: its defaults' track, else its thread's. */
  private sequenceTrack(b: ProtoBatch, r: number, state: SequenceState): number {
    const uuid = state.defaultTrackUuid;
    if (uuid !== null) {
      // Looked up once per defaults, not per event (most events of a Chrome trace name none).
      if (state.defaultTrackOf !== uuid) {
        state.defaultTrackOf = uuid;
        state.defaultTrack = this.tracks.trackOf(uuid);
      }
      return state.defaultTrack;
    }
    return state.threadTrack ?? this.tracks.trackOf(`sequence:${b.num(r, P.SEQUENCE)}`);
  }

  private addEvent(): number {
    const i = this.spool.add();
    if (this.spool.length > this.maxEvents)
      throw tooLarge(PERFETTO_FORMAT, "events", this.spool.length, this.maxEvents);
    return i;
  }

  /**
   * Spools one event of track `t` at `ns` (primary clock); `durNs` counts for complete
   * events only, `threadNs` (the thread's CPU clock at a B or E) for slices' thread time.
   */
  spoolEvent(
    t: number,
    ns: number,
    kind: number,
    nameId: number,
    ph: string,
    args: string | ByteBuf | null,
    catId = -1,
    durNs = 0,
    threadNs = Number.NaN,
  ): void {
    const i = this.addEvent();
    const cols = this.spool.cols;
    while (this.trackEndNs.length <= t) this.trackEndNs.push(Number.NEGATIVE_INFINITY);
    cols.track.array[i] = t;
    cols.startNs.array[i] = ns;
    cols.name.array[i] = nameId;
    cols.cat.array[i] = catId;
    cols.ph.array[i] = this.phId(ph);
    cols.kind.array[i] = kind;
    cols.threadNs.array[i] = threadNs;
    if (kind === KIND_COMPLETE) cols.durNs.array[i] = durNs;
    if (kind === KIND_BEGIN || kind === KIND_COMPLETE)
      cols.frame.array[i] = this.sliceFrames.frameOfIds(nameId, catId, this.text);
    if (args !== null && storeEventArgs(this.spool.cols, i, args, this.maxArgsBytes))
      this.truncatedArgs++;
    const end = kind === KIND_COMPLETE ? ns + durNs : ns;
    if (end > this.trackEndNs[t]!) this.trackEndNs[t] = end;
  }

  /**
   * A counter reading of track `t` at `ns`, named by string id `nameId`, as a `trace_counters` row;
   * false where readings are stored as events (see `readings`).
   */
  counterReading(t: number, ns: number, nameId: number, value: number): boolean {
    const readings = this.readings;
    if (readings === null) return false;
    const index = this.spool.reserve();
    if (this.spool.length > this.maxEvents)
      throw tooLarge(PERFETTO_FORMAT, "events", this.spool.length, this.maxEvents);
    while (this.trackEndNs.length <= t) this.trackEndNs.push(Number.NEGATIVE_INFINITY);
    if (ns > this.trackEndNs[t]!) this.trackEndNs[t] = ns;
    readings.add(index, t, nameId, ns, value);
    return true;
  }

  private readonly trackByUuidNumber = new Map<number, number>();
  /** Where an event's args JSON is written as bytes (writeAnnotationsJson). */
  private readonly argsBuf = new ByteBuf(256);

  /**
   * The event's track_uuid slot → track, without building a bigint string per event for small
   * uuids.
   */
  private trackOfUuid(b: ProtoBatch, r: number): number {
    const n = b.num(r, P.TRACK_UUID);
    if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) {
      let t = this.trackByUuidNumber.get(n);
      if (t === undefined) {
        t = this.tracks.trackOf(String(n));
        this.trackByUuidNumber.set(n, t);
      }
      return t;
    }
    return this.tracks.trackOf(b.ubig(r, P.TRACK_UUID).toString());
  }
}
