/**
 * System traces (Android, Linux `perfetto` with the ftrace data source): atrace marks in
 * ftrace `print` events become slices, instants and counters on the writing thread's
 * track, and process_tree packets name processes and threads. Timestamps are the ftrace
 * clock, boot time (clock 6) unless the trace config chose another.
 */
import { KIND_BEGIN, KIND_END, KIND_EVENT } from "../chrome-trace/event-scan.ts";
import type { ProtoBatch } from "../wasm/proto-batch.ts";
import { parseAtrace } from "./atrace-marks.ts";
import type { PerfettoEventSink } from "./event-sink.ts";
import type { PerfettoTracks } from "./perfetto-tracks.ts";
import type { ClockDomain } from "./sequence-state.ts";
import { F, R } from "./trace-program.ts";

const BOOTTIME_CLOCK = 6;

export class FtraceMarks {
  /** atrace marks read (slices, instants, counters). */
  marks = 0;
  /** Async marks (S/F/G/H/N/U), recognised but not imported. */
  asyncMarks = 0;
  /** tid → tgid, from the first mark or process_tree entry that names it: one thread keeps one track. */
  private readonly tgidOfTid = new Map<number, number>();
  private cmdline: string | null = null;

  constructor(
    private readonly tracks: PerfettoTracks,
    private readonly domain: ClockDomain,
    private readonly sink: PerfettoEventSink,
  ) {}

  /** An FtraceEvent record (only `print` events carry marks). */
  event(b: ProtoBatch, r: number): void {
    if (!b.has(r, F.PRINT_BUF)) return;
    const mark = parseAtrace(b.bytes(r, F.PRINT_BUF));
    if (mark === null) return;
    if (mark.kind === "async") {
      this.asyncMarks++;
      return;
    }
    this.marks++;
    const tid = b.num(r, F.TID);
    if (mark.tgid !== null && !this.tgidOfTid.has(tid)) this.tgidOfTid.set(tid, mark.tgid);
    const tgid = this.tgidOfTid.get(tid) ?? null;
    const ns = this.domain.toPrimary(BOOTTIME_CLOCK, b.num(r, F.TIMESTAMP));
    if (mark.kind === "counter") {
      const uuid = `atrace-counter:${tgid ?? "-"}:${mark.name}`;
      this.tracks.describe(uuid, { parent: null, name: mark.name, pid: tgid, tid: null, processName: null, threadName: null });
      this.sink.spoolEvent(this.tracks.trackOf(uuid), ns, KIND_EVENT, this.sink.intern(mark.name), "C", JSON.stringify({ value: mark.value }));
      return;
    }
    const track = this.threadTrack(tgid, tid);
    if (mark.kind === "begin") this.sink.spoolEvent(track, ns, KIND_BEGIN, this.sink.intern(mark.name), "B", null);
    else if (mark.kind === "end") this.sink.spoolEvent(track, ns, KIND_END, -1, "E", null);
    else this.sink.spoolEvent(track, ns, KIND_EVENT, this.sink.intern(mark.name), "I", null);
  }

  /** process_tree records: a process's cmdline entries (first names it), then the process; threads. */
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
      this.tracks.describe(this.threadUuid(tgid, tid), { parent: null, name: null, pid: tgid, tid, processName: null, threadName: b.string(r, 2) });
    }
  }

  private readonly threadTracks = new Map<number, { tgid: number | null; track: number }>();

  private threadTrack(tgid: number | null, tid: number): number {
    const known = this.threadTracks.get(tid);
    if (known !== undefined && known.tgid === tgid) return known.track;
    const uuid = this.threadUuid(tgid, tid);
    this.tracks.describe(uuid, { parent: null, name: null, pid: tgid, tid, processName: null, threadName: null });
    const track = this.tracks.trackOf(uuid);
    this.threadTracks.set(tid, { tgid, track });
    return track;
  }

  /** The same uuid ThreadDescriptor packets use, so names from either land on one track. */
  private threadUuid(tgid: number | null, tid: number): string {
    return `thread:${tgid ?? "-"}:${tid}`;
  }
}
