/**
 * Counter events of a Perfetto trace, as Trace Processor reads them: readings scale by
 * their track's CounterDescriptor unit_multiplier and incremental tracks accumulate;
 * TrackEvent extra counter values (Chrome's per-thread `thread_time`) are readings of
 * other counter tracks taken with an event; process_stats samples are per-process memory
 * counters. Counter events without a name are named by their track.
 */
import { ByteBuf } from "../common/json-bytes.ts";
import { KIND_EVENT } from "../trace-events/event-kinds.ts";
import { counterArgs } from "./event-args.ts";
import type { PerfettoEventSink } from "./event-sink.ts";
import type { PacketChildren } from "./packet-children.ts";
import type { CounterSpec, PerfettoTracks } from "./perfetto-tracks.ts";
import type { SequenceState } from "./sequence-state.ts";
import { PROCESS_STAT_COUNTERS } from "./trace-program.ts";

export class PerfettoCounters {
  /** Extra counter values with no track uuid for them (more values than uuids). */
  withoutTrack = 0;
  /** Per track, the name last interned for it and its string id (see trackNameId). */
  private readonly nameOf: (string | undefined)[] = [];
  private readonly nameIdOf: number[] = [];
  /** Where a reading's args are written (copied into the spool at once). */
  private readonly argsBuf = new ByteBuf(64);

  constructor(
    private readonly tracks: PerfettoTracks,
    private readonly sink: PerfettoEventSink,
  ) {}

  /**
   * A reading of track `t` written on packet sequence `state`, as its descriptor defines it: scaled,
   * and summed when incremental (per sequence: see SequenceState.counterTotals).
   */
  value(t: number, raw: number, state: SequenceState): number {
    return this.reading(this.tracks.descriptorOf(t)?.counter, t, raw, state);
  }

  private reading(
    spec: CounterSpec | null | undefined,
    t: number,
    raw: number,
    state: SequenceState,
  ): number {
    if (!spec) return raw;
    const value = raw * spec.multiplier;
    if (!spec.incremental) return value;
    const total = (state.counterTotals.get(t) ?? 0) + value;
    state.counterTotals.set(t, total);
    return total;
  }

  /** The string id of track `t`'s name (-1: unnamed). */
  trackNameId(t: number): number {
    const name = this.tracks.descriptorOf(t)?.name;
    if (!name) return -1;
    // One interning per track and name, not per reading (a descriptor may rename its track).
    if (this.nameOf[t] !== name) {
      this.nameOf[t] = name;
      this.nameIdOf[t] = this.sink.intern(name);
    }
    return this.nameIdOf[t]!;
  }

  /**
   * The event's extra counter values, each a counter event on its track at `ns`. Returns
   * the reading of a thread time counter among them (ns; NaN: none), the thread's CPU
   * clock at the event, from which its slice's thread time follows.
   */
  extra(c: PacketChildren, state: SequenceState, ns: number): number {
    const ints =
      c.extraUuids.length > 0
        ? this.readings(c.extraValues, c.extraUuids, null, state, ns)
        : this.readings(
            c.extraValues,
            state.defaultExtraUuids,
            state.defaultExtraTracks,
            state,
            ns,
          );
    const doubles =
      c.extraDoubleUuids.length > 0
        ? this.readings(c.extraDoubleValues, c.extraDoubleUuids, null, state, ns)
        : this.readings(
            c.extraDoubleValues,
            state.defaultExtraDoubleUuids,
            state.defaultExtraDoubleTracks,
            state,
            ns,
          );
    return Number.isNaN(ints) ? doubles : ints;
  }

  /**
   * process_stats: one counter event per present value, on the process's track for that counter.
   */
  processStats(c: PacketChildren, ns: number): void {
    for (const { pid, values } of c.processStats) {
      values.forEach((value, k) => {
        if (value === null) return;
        const counter = PROCESS_STAT_COUNTERS[k]!;
        const uuid = `process-counter:${pid}:${counter.name}`;
        this.tracks.describe(uuid, {
          parent: null,
          name: counter.name,
          pid,
          tid: null,
          processName: null,
          threadName: null,
        });
        this.counterEvent(this.tracks.trackOf(uuid), ns, counter.kib ? value * 1024 : value);
      });
    }
  }

  /**
   * Counter events for `values` on the tracks of `uuids` (`known`: their tracks where already
   * looked up, filled as they are); returns the thread time reading among them (NaN: none).
   */
  private readings(
    values: number[],
    uuids: string[],
    known: number[] | null,
    state: SequenceState,
    ns: number,
  ): number {
    let threadNs = Number.NaN;
    for (let k = 0; k < values.length; k++) {
      const uuid = uuids[k];
      if (uuid === undefined) {
        this.withoutTrack++;
        continue;
      }
      let t = known?.[k];
      if (t === undefined) {
        t = this.tracks.trackOf(uuid);
        if (known) known[k] = t;
      }
      const spec = this.tracks.descriptorOf(t)?.counter;
      const value = this.reading(spec, t, values[k]!, state);
      if (spec?.threadTime) threadNs = value;
      this.counterEvent(t, ns, value);
    }
    return threadNs;
  }

  private counterEvent(t: number, ns: number, value: number): void {
    const name = this.trackNameId(t);
    if (this.sink.counterReading(t, ns, name, value)) return;
    this.sink.spoolEvent(t, ns, KIND_EVENT, name, "C", counterArgs(value, this.argsBuf));
  }
}
