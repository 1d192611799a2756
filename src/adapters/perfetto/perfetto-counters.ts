/**
 * Counter events of a Perfetto trace, as Trace Processor reads them: readings scale by
 * their track's CounterDescriptor unit_multiplier and incremental tracks accumulate;
 * TrackEvent extra counter values (Chrome's per-thread `thread_time`) are readings of
 * other counter tracks taken with an event; process_stats samples are per-process memory
 * counters. Counter events without a name are named by their track.
 */
import { KIND_EVENT } from "../trace-events/event-kinds.ts";
import type { PerfettoEventSink } from "./event-sink.ts";
import type { PacketChildren } from "./packet-children.ts";
import type { PerfettoTracks } from "./perfetto-tracks.ts";
import type { SequenceState } from "./sequence-state.ts";
import { PROCESS_STAT_COUNTERS } from "./trace-program.ts";

export class PerfettoCounters {
  /** Extra counter values with no track uuid for them (more values than uuids). */
  withoutTrack = 0;
  /** Running totals of incremental counter tracks. */
  private readonly totals = new Map<number, number>();
  /**
   * The packet sequence that last described each incremental counter track: its total
   * restarts from 0 when that sequence clears its incremental state, as Trace Processor's
   * TrackEventTracker::OnIncrementalStateCleared does (the writer restarts its deltas then).
   */
  private readonly incrementalSequence = new Map<number, number>();

  constructor(
    private readonly tracks: PerfettoTracks,
    private readonly sink: PerfettoEventSink,
  ) {}

  /** A reading of track `t` as its descriptor defines it: scaled, and summed when incremental. */
  value(t: number, raw: number): number {
    const spec = this.tracks.descriptorOf(t)?.counter;
    if (!spec) return raw;
    const value = raw * spec.multiplier;
    if (!spec.incremental) return value;
    const total = (this.totals.get(t) ?? 0) + value;
    this.totals.set(t, total);
    return total;
  }

  /** Track `t` was described, on packet sequence `sequence`, as an incremental counter. */
  describedIncremental(t: number, sequence: number): void {
    this.incrementalSequence.set(t, sequence);
  }

  /** Packet sequence `sequence` cleared its incremental state: its incremental counters restart. */
  sequenceCleared(sequence: number): void {
    for (const [t, s] of this.incrementalSequence) if (s === sequence) this.totals.delete(t);
  }

  /** The string id of track `t`'s name (-1: unnamed). */
  trackNameId(t: number): number {
    const name = this.tracks.descriptorOf(t)?.name;
    return name ? this.sink.intern(name) : -1;
  }

  /**
   * The event's extra counter values, each a counter event on its track at `ns`. Returns
   * the reading of a thread time counter among them (ns; NaN: none), the thread's CPU
   * clock at the event, from which its slice's thread time follows.
   */
  extra(c: PacketChildren, state: SequenceState, ns: number): number {
    const ints = this.readings(c.extraValues, c.extraUuids.length > 0 ? c.extraUuids : state.defaultExtraUuids, ns);
    const doubles = this.readings(c.extraDoubleValues, c.extraDoubleUuids.length > 0 ? c.extraDoubleUuids : state.defaultExtraDoubleUuids, ns);
    return Number.isNaN(ints) ? doubles : ints;
  }

  /** process_stats: one counter event per present value, on the process's track for that counter. */
  processStats(c: PacketChildren, ns: number): void {
    for (const { pid, values } of c.processStats) {
      values.forEach((value, k) => {
        if (value === null) return;
        const counter = PROCESS_STAT_COUNTERS[k]!;
        const uuid = `process-counter:${pid}:${counter.name}`;
        this.tracks.describe(uuid, { parent: null, name: counter.name, pid, tid: null, processName: null, threadName: null });
        this.counterEvent(this.tracks.trackOf(uuid), ns, counter.kib ? value * 1024 : value);
      });
    }
  }

  /** Counter events for `values`; returns the thread time reading among them (NaN: none). */
  private readings(values: number[], uuids: string[], ns: number): number {
    let threadNs = Number.NaN;
    values.forEach((raw, k) => {
      const uuid = uuids[k];
      if (uuid === undefined) {
        this.withoutTrack++;
        return;
      }
      const t = this.tracks.trackOf(uuid);
      const value = this.value(t, raw);
      if (this.tracks.descriptorOf(t)?.counter?.threadTime) threadNs = value;
      this.counterEvent(t, ns, value);
    });
    return threadNs;
  }

  private counterEvent(t: number, ns: number, value: number): void {
    this.sink.spoolEvent(t, ns, KIND_EVENT, this.trackNameId(t), "C", JSON.stringify({ value }));
  }
}
