/**
 * What a Chromium trace holds, read straight from the file without flameox's adapters:
 * JSON.parse for the JSON form, a protobufjs walk of the packets for the protobuf form
 * (Perfetto's own TracePacket semantics: per-sequence interning, incremental clocks and
 * counters, default tracks). Tests compare each import with these counts.
 */
import { expect } from "bun:test";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { functionKey } from "./reference-cpuprofile.ts";

type Msg = Record<string, any>;

/** A ProfileChunk's data and the profile it belongs to (its process and id). */
export interface RawChunk {
  profile: string;
  data: any;
}

function jsonEvents(text: string): Msg[] {
  const parsed = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

export function jsonChunks(text: string): RawChunk[] {
  return jsonEvents(text)
    .filter((e) => e.name === "ProfileChunk")
    .map((e) => ({ profile: `${e.pid}/${e.id}`, data: e.args?.data }));
}

/** Packets with 64-bit fields as decimal strings: track uuids do not fit a double. */
const packetsOf = (bytes: Uint8Array): Msg[] =>
  (Trace.toObject(Trace.decode(bytes), { longs: String }) as Msg).packet as Msg[];

/**
 * Chrome writes each thread's events on its own packet sequence, whose default track is
 * the thread's (and so names the process); a chunk's profile is its process and legacy id.
 * The last chunk of a profile is written on the sampled thread, the others on the
 * profiler's, so the process (not the sequence) joins them.
 */
export function protoChunks(bytes: Uint8Array): RawChunk[] {
  const names = new Map<string, string>();
  const pidOfTrack = new Map<string, number>();
  const defaultTrack = new Map<number, string>();
  const out: RawChunk[] = [];
  for (const p of packetsOf(bytes)) {
    const seq = p.trusted_packet_sequence_id as number;
    const descriptor = p.track_descriptor;
    if (descriptor?.thread ?? descriptor?.process)
      pidOfTrack.set(descriptor.uuid, (descriptor.thread ?? descriptor.process).pid);
    const defaults = p.trace_packet_defaults?.track_event_defaults?.track_uuid;
    if (defaults !== undefined) defaultTrack.set(seq, defaults);
    for (const n of p.interned_data?.event_names ?? []) names.set(`${seq}/${n.iid}`, n.name);
    const e = p.track_event;
    if (!e || (e.name ?? names.get(`${seq}/${e.name_iid}`)) !== "ProfileChunk") continue;
    const pid = pidOfTrack.get(
      e.track_uuid && e.track_uuid !== "0" ? e.track_uuid : (defaultTrack.get(seq) ?? ""),
    );
    expect(pid).toBeDefined();
    const annotations = (e.debug_annotations ?? []) as Msg[];
    expect(annotations.length).toBe(1);
    out.push({
      profile: `${pid}/${e.legacy_event?.unscoped_id}`,
      data: JSON.parse(annotations[0]!.legacy_json_value),
    });
  }
  return out;
}

/** Samples per "function @ url", over all profiles; (root) samples are not a function's. */
export function countSamples(chunks: RawChunk[]): Map<string, number> {
  const nodeNames = new Map<string, string>();
  for (const { profile, data } of chunks) {
    for (const node of data?.cpuProfile?.nodes ?? [])
      nodeNames.set(
        `${profile}#${node.id}`,
        functionKey(node.callFrame.functionName, node.callFrame.url || null),
      );
  }
  const counts = new Map<string, number>();
  for (const { profile, data } of chunks) {
    for (const id of data?.cpuProfile?.samples ?? []) {
      const fn = nodeNames.get(`${profile}#${id}`);
      expect(fn).toBeDefined();
      if (fn !== functionKey("(root)", null)) counts.set(fn!, (counts.get(fn!) ?? 0) + 1);
    }
  }
  return counts;
}

/** Thread (CPU) time of the JSON form's complete events: "pid/tid name ts" (ns) → tdur (ns). */
export function jsonThreadTimes(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of jsonEvents(text))
    if (e.ph === "X" && typeof e.tdur === "number")
      out.set(`${e.pid}/${e.tid} ${e.name} ${e.ts * 1000}`, e.tdur * 1000);
  return out;
}

/**
 * Thread time of the protobuf form's slices: "pid/tid name ts" (ns of CLOCK_MONOTONIC, the
 * clock of Chrome's snapshots) → ns. Every timestamped packet of a sequence moves its
 * incremental clock (descriptors too); each event's extra counter values (Chrome's
 * incremental thread_time, by default on the sequence's counter track) give the thread's
 * clock at a begin and an end; begins and ends pair per track, innermost first.
 */
export function protoThreadTimes(bytes: Uint8Array): Map<string, number> {
  interface Clock {
    value: number;
    base: number;
    refNs: number;
    unitNs: number;
    incremental: boolean;
  }
  interface Sequence {
    names: Map<number, string>;
    clocks: Map<number, Clock>;
    defaults: Msg | null;
    totals: Map<string, number>;
  }
  const sequences = new Map<number, Sequence>();
  const threadOf = new Map<string, string>();
  const counters = new Map<string, { unit: number; incremental: boolean }>();
  const open = new Map<string, { name: string; ns: number; thread: number }[]>();
  const out = new Map<string, number>();
  for (const p of packetsOf(bytes)) {
    const id = p.trusted_packet_sequence_id ?? 0;
    let s = sequences.get(id);
    if (!s)
      sequences.set(
        id,
        (s = { names: new Map(), clocks: new Map(), defaults: null, totals: new Map() }),
      );
    if (p.incremental_state_cleared || (p.sequence_flags ?? 0) & 1) {
      s.names.clear();
      s.totals.clear();
    }
    const d = p.track_descriptor;
    if (d?.thread) threadOf.set(d.uuid, `${d.thread.pid}/${d.thread.tid}`);
    if (d?.counter)
      counters.set(d.uuid, {
        unit: Number(d.counter.unit_multiplier ?? 1),
        incremental: !!d.counter.is_incremental,
      });
    if (p.trace_packet_defaults) s.defaults = p.trace_packet_defaults;
    for (const n of p.interned_data?.event_names ?? []) s.names.set(n.iid, n.name);
    if (p.clock_snapshot && id !== 0) {
      const monotonic = (p.clock_snapshot.clocks as Msg[]).find((c) => c.clock_id === 3)!;
      for (const c of p.clock_snapshot.clocks as Msg[]) {
        const at = Number(c.timestamp);
        if (c.clock_id >= 64)
          s.clocks.set(c.clock_id, {
            value: at,
            base: at,
            refNs: Number(monotonic.timestamp),
            unitNs: Number(c.unit_multiplier_ns ?? 1),
            incremental: !!c.is_incremental,
          });
      }
    }
    const clockId = p.timestamp_clock_id ?? s.defaults?.timestamp_clock_id;
    const clock = clockId >= 64 && p.timestamp !== undefined ? s.clocks.get(clockId) : undefined;
    let ns = Number(p.timestamp);
    if (clock) {
      if (clock.incremental) clock.value += ns;
      ns = clock.refNs + ((clock.incremental ? clock.value : ns) - clock.base) * clock.unitNs;
    }
    const e = p.track_event;
    if (!e) continue;
    const uuids =
      (e.extra_counter_track_uuids?.length
        ? e.extra_counter_track_uuids
        : s.defaults?.track_event_defaults?.extra_counter_track_uuids) ?? [];
    let thread = Number.NaN;
    (e.extra_counter_values ?? []).forEach((value: string, i: number) => {
      const v = Number(value);
      const spec = counters.get(uuids[i]);
      const total = spec?.incremental ? (s.totals.get(uuids[i]) ?? 0) + v : v;
      s.totals.set(uuids[i], total);
      if (i === 0) thread = total * (spec?.unit ?? 1);
    });
    const track = e.track_uuid ?? s.defaults?.track_event_defaults?.track_uuid;
    const where = threadOf.get(track);
    if (where === undefined || (e.type !== 1 && e.type !== 2)) continue;
    const stack = open.get(track) ?? [];
    open.set(track, stack);
    if (e.type === 1) stack.push({ name: e.name ?? s.names.get(e.name_iid), ns, thread });
    else {
      const begin = stack.pop();
      if (begin && Number.isFinite(begin.thread) && Number.isFinite(thread))
        out.set(`${where} ${begin.name} ${begin.ns}`, thread - begin.thread);
    }
  }
  return out;
}
