/**
 * System traces (Android, Linux `perfetto` with the ftrace data source): atrace marks in
 * ftrace `print` events become slices, instants and counters on the writing thread's
 * track, async slices on process tracks, and process_tree packets name processes and
 * threads.
 *
 * An async slice (S/F, G/H) gets a track of its own per process, name (or named track) and
 * cookie, as Trace Processor's first importer gave it: the spool orders each track by
 * time, so a begin and its end pair up whichever CPU's bundle brought them first.
 *
 * Event times are on the bundle's ftrace clock, read as Trace Processor's FtraceTokenizer
 * reads it: unset is boot time, `mono_raw` is CLOCK_MONOTONIC_RAW, and `global`/`local`
 * (kernel clocks user space cannot read) are a clock of the packet sequence, related to
 * boot time by the {ftrace, boot} timestamp pairs the bundles carry. The clock fields may
 * follow the events in the bundle, so a packet's marks wait for its packet record.
 */
import { KIND_BEGIN, KIND_END, KIND_EVENT } from "../trace-events/event-kinds.ts";
import { tooLarge } from "../json-guard.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { parseAtrace, type AtraceMark } from "./atrace-marks.ts";
import type { PerfettoEventSink } from "./event-sink.ts";
import type { PerfettoTracks } from "./perfetto-tracks.ts";
import type { ClockDomain } from "./sequence-state.ts";
import { F, P, R } from "./trace-program.ts";

const BOOTTIME_CLOCK = 6,
  MONOTONIC_RAW_CLOCK = 5;
/** FtraceEventBundle.FtraceClock (ftrace_event_bundle.proto). */
const FTRACE_CLOCK_UNSPECIFIED = 0,
  FTRACE_CLOCK_GLOBAL = 2,
  FTRACE_CLOCK_LOCAL = 3,
  FTRACE_CLOCK_MONO_RAW = 4;
/**
 * Marks of one packet held until its clock is known. Real bundles hold one read of one CPU's
 * buffer (thousands of events); more is a malformed or hostile trace.
 */
const MAX_PENDING_MARKS = 1 << 20;
/** {ftrace, boot} pairs kept per sequence: a bundle's events lie just before its own pair. */
const SNAPSHOTS_KEPT = 16;

interface PendingMark {
  mark: AtraceMark;
  tid: number;
  ts: number;
}

export class FtraceMarks {
  /** atrace marks read (slices, instants, counters). */
  marks = 0;
  /** Marks dropped because their bundle's clock cannot be related to the trace clock. */
  unconvertibleMarks = 0;
  private readonly pending: PendingMark[] = [];
  /** Tracks of S/F marks: their slices do not nest (see TrackSlicing). */
  private readonly unnestableTracks = new Set<number>();
  /**
   * Per packet sequence: its ftrace clock's {ftrace, boot} pairs, oldest first (the first one seen
   * stays).
   */
  private readonly snapshots = new Map<number, { ftrace: number; boot: number }[]>();
  /**
   * tid → tgid, from the first mark or process_tree entry that names it: one thread keeps one
   * track.
   */
  private readonly tgidOfTid = new Map<number, number>();
  private cmdline: string | null = null;

  constructor(
    private readonly tracks: PerfettoTracks,
    private readonly domain: ClockDomain,
    private readonly sink: PerfettoEventSink,
  ) {}

  /** An FtraceEvent record (only `print` events carry marks): held until its packet's record. */
  event(b: ProtoBatch, r: number): void {
    if (!b.has(r, F.PRINT_BUF)) return;
    const mark = parseAtrace(b.bytes(r, F.PRINT_BUF));
    if (mark === null) return;
    if (this.pending.length >= MAX_PENDING_MARKS)
      throw tooLarge(
        "Perfetto trace",
        "atrace marks in one packet",
        this.pending.length + 1,
        MAX_PENDING_MARKS,
      );
    this.pending.push({ mark, tid: b.num(r, F.TID), ts: b.num(r, F.TIMESTAMP) });
  }

  /**
   * A packet record (on packet sequence `sequence`): its bundle's clock converts the marks read
   * before it.
   */
  packet(b: ProtoBatch, r: number, sequence: number): void {
    const clock = b.has(r, P.FTRACE_CLOCK) ? b.num(r, P.FTRACE_CLOCK) : FTRACE_CLOCK_UNSPECIFIED;
    const sequenceClock = clock === FTRACE_CLOCK_GLOBAL || clock === FTRACE_CLOCK_LOCAL;
    if (sequenceClock && b.has(r, P.FTRACE_TIMESTAMP) && b.has(r, P.BOOT_TIMESTAMP))
      this.snapshot(sequence, b.num(r, P.FTRACE_TIMESTAMP), b.num(r, P.BOOT_TIMESTAMP));
    if (this.pending.length === 0) return;
    for (const { mark, tid, ts } of this.pending) {
      const ns =
        clock === FTRACE_CLOCK_UNSPECIFIED
          ? this.domain.toPrimary(BOOTTIME_CLOCK, ts)
          : clock === FTRACE_CLOCK_MONO_RAW
            ? this.domain.toPrimary(MONOTONIC_RAW_CLOCK, ts)
            : sequenceClock
              ? this.sequenceToBoot(sequence, ts)
              : null;
      if (ns === null) this.unconvertibleMarks++;
      else this.record(mark, tid, ns);
    }
    this.pending.length = 0;
  }

  private snapshot(sequence: number, ftrace: number, boot: number): void {
    let list = this.snapshots.get(sequence);
    if (!list) this.snapshots.set(sequence, (list = []));
    // Consecutive bundles often share a pair.
    if (list.length > 0 && list[list.length - 1]!.ftrace === ftrace) return;
    list.push({ ftrace, boot });
    if (list.length > SNAPSHOTS_KEPT) list.splice(1, 1);
  }

  /**
   * A sequence-clock reading in the trace clock, through the pair with the latest ftrace
   * time at or before it, else the earliest pair (the rule of Trace Processor's
   * ClockTracker); null when the sequence has no pair.
   */
  private sequenceToBoot(sequence: number, ts: number): number | null {
    const list = this.snapshots.get(sequence);
    if (!list || list.length === 0) return null;
    let pair = list[0]!;
    for (const s of list) if (s.ftrace <= ts) pair = s;
    return this.domain.toPrimary(BOOTTIME_CLOCK, ts - pair.ftrace + pair.boot);
  }

  private record(mark: AtraceMark, tid: number, ns: number): void {
    this.marks++;
    if (mark.kind === "async-begin" || mark.kind === "async-end" || mark.kind === "track-instant") {
      this.processMark(mark, ns);
      return;
    }
    if (mark.tgid !== null && !this.tgidOfTid.has(tid)) this.tgidOfTid.set(tid, mark.tgid);
    const tgid = this.tgidOfTid.get(tid) ?? null;
    if (mark.kind === "counter") {
      const track = this.processTrack(
        `atrace-counter:${tgid ?? "-"}:${mark.name}`,
        mark.name,
        tgid,
      );
      this.sink.spoolEvent(
        track,
        ns,
        KIND_EVENT,
        this.sink.intern(mark.name),
        "C",
        JSON.stringify({ value: mark.value }),
      );
      return;
    }
    const track = this.threadTrack(tgid, tid);
    if (mark.kind === "begin")
      this.sink.spoolEvent(track, ns, KIND_BEGIN, this.sink.intern(mark.name), "B", null);
    else if (mark.kind === "end") this.sink.spoolEvent(track, ns, KIND_END, -1, "E", null);
    else this.sink.spoolEvent(track, ns, KIND_EVENT, this.sink.intern(mark.name), "I", null);
  }

  private readonly processTracks = new Map<string, number>();

  /**
   * Process track `uuid`, described when first seen (one descriptor merge per track, not per mark).
   */
  private processTrack(uuid: string, name: string | null, tgid: number | null): number {
    let track = this.processTracks.get(uuid);
    if (track === undefined) {
      this.tracks.describe(uuid, {
        parent: null,
        name,
        pid: tgid,
        tid: null,
        processName: null,
        threadName: null,
      });
      track = this.tracks.trackOf(uuid);
      this.processTracks.set(uuid, track);
    }
    return track;
  }

  /** A mark on a process track: async slice begins and ends, instants on named tracks. */
  private processMark(
    mark: Extract<AtraceMark, { tgid: number; track: string | null }>,
    ns: number,
  ): void {
    // Names, track names and cookies cannot hold '|' (it separates the mark's fields).
    const uuid =
      mark.kind === "track-instant"
        ? `atrace-track|${mark.tgid}|${mark.track}`
        : mark.track === null
          ? `atrace-async|${mark.tgid}|${mark.name}|${mark.cookie}`
          : `atrace-track-async|${mark.tgid}|${mark.track}|${mark.cookie}`;
    const track = this.processTrack(uuid, mark.track ?? mark.name, mark.tgid);
    if (mark.kind !== "track-instant" && mark.track === null) this.unnestableTracks.add(track);
    if (mark.kind === "async-begin")
      this.sink.spoolEvent(
        track,
        ns,
        KIND_BEGIN,
        this.sink.intern(mark.name),
        "B",
        `{"cookie":${mark.cookie}}`,
      );
    else if (mark.kind === "async-end") this.sink.spoolEvent(track, ns, KIND_END, -1, "E", null);
    else this.sink.spoolEvent(track, ns, KIND_EVENT, this.sink.intern(mark.name), "I", null);
  }

  /** Whether track `t` holds S/F async slices, which do not nest. */
  unnestable(t: number): boolean {
    return this.unnestableTracks.has(t);
  }

  /**
   * process_tree records: a process's cmdline entries (first names it), then the process; threads.
   */
  processTree(b: ProtoBatch, r: number, type: number): void {
    if (type === R.PT_CMDLINE) {
      this.cmdline ??= b.string(r, 0);
    } else if (type === R.PT_PROCESS) {
      if (this.cmdline) this.tracks.nameProcess(b.num(r, 0), this.cmdline);
      this.cmdline = null;
    } else if (type === R.PT_THREAD) {
      const tid = b.num(r, 0);
      if (b.has(r, 1) && !this.tgidOfTid.has(tid)) this.tgidOfTid.set(tid, b.num(r, 1));
      const tgid = this.tgidOfTid.get(tid) ?? null;
      this.tracks.describe(this.threadUuid(tgid, tid), {
        parent: null,
        name: null,
        pid: tgid,
        tid,
        processName: null,
        threadName: b.string(r, 2),
      });
    }
  }

  private readonly threadTracks = new Map<number, { tgid: number | null; track: number }>();

  private threadTrack(tgid: number | null, tid: number): number {
    const known = this.threadTracks.get(tid);
    if (known !== undefined && known.tgid === tgid) return known.track;
    const uuid = this.threadUuid(tgid, tid);
    this.tracks.describe(uuid, {
      parent: null,
      name: null,
      pid: tgid,
      tid,
      processName: null,
      threadName: null,
    });
    const track = this.tracks.trackOf(uuid);
    this.threadTracks.set(tid, { tgid, track });
    return track;
  }

  /** The same uuid ThreadDescriptor packets use, so names from either land on one track. */
  private threadUuid(tgid: number | null, tid: number): string {
    return `thread:${tgid ?? "-"}:${tid}`;
  }
}
