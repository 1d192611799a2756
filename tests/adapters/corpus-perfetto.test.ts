/**
 * Perfetto traces: every corpus file is detected and imported; slices equal an
 * independent pairing over the protobufjs-decoded packets (per track, begin/end in
 * order); chunk boundaries change nothing; CPU samples, counters and annotations of a
 * trace built with protobufjs come out as frames, stacks and args.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { bufferRows, traceEventBufferRows } from "./stream-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";
import { extracted } from "./adapter-harness.ts";

const perfetto = adapterByName("perfetto")!;
type Msg = Record<string, any>;

/**
 * Slice name → sorted durations (ns) of begin/end pairs, computed independently over the
 * protobufjs-decoded packets: timestamps resolved through the sequence's incremental clock
 * and the global clock snapshot, events sorted by time per track (input order on ties),
 * an end closing the innermost open slice of its track.
 */
function referenceSlices(bytes: Uint8Array): {
  durations: Map<string, number[]>;
  threadDurations: Map<string, number[]>;
  begins: number;
} {
  // Track uuids exceed 2^53: decode 64-bit fields as strings, convert times explicitly.
  const trace = Trace.toObject(Trace.decode(bytes), { longs: String }) as Msg;
  const threadReadings = extraCounterReadings(trace.packet as Msg[]).map(
    (list) => list.find((r) => r.threadTime)?.value,
  );
  const n = (v: unknown): number => Number(v ?? 0);
  const names = new Map<string, string>(); // `${seq}:${iid}` → name
  const defaults = new Map<number, string>(); // seq → default track uuid
  const sequenceDefaultClock = new Map<number, number>();
  const seqClocks = new Map<
    number,
    { base: number; refClock: number; refNs: number; unit: number; last: number }
  >();
  const offsets = new Map<number, number>();
  let primary = 6;
  const events: {
    track: string;
    ts: number;
    order: number;
    type: number;
    name: string;
    thread: number | undefined;
  }[] = [];
  let begins = 0;
  for (const [index, p] of (trace.packet as Msg[]).entries()) {
    const seq = p.trusted_packet_sequence_id ?? 0;
    if ((p.sequence_flags ?? 0) & 1 || p.incremental_state_cleared) {
      for (const key of [...names.keys()]) if (key.startsWith(`${seq}:`)) names.delete(key);
    }
    for (const n of p.interned_data?.event_names ?? []) names.set(`${seq}:${n.iid}`, n.name);
    const uuid = p.trace_packet_defaults?.track_event_defaults?.track_uuid;
    if (uuid !== undefined) defaults.set(seq, uuid);
    if (p.trace_packet_defaults?.timestamp_clock_id !== undefined)
      sequenceDefaultClock.set(seq, p.trace_packet_defaults.timestamp_clock_id);
    const clocks: Msg[] = p.clock_snapshot?.clocks ?? [];
    if (p.clock_snapshot?.primary_trace_clock !== undefined)
      primary = p.clock_snapshot.primary_trace_clock;
    const reference = clocks.find((c) => c.clock_id === primary);
    if (reference)
      for (const c of clocks)
        if (c.clock_id < 64) offsets.set(c.clock_id, n(reference.timestamp) - n(c.timestamp));
    for (const c of clocks) {
      if (c.clock_id >= 64)
        seqClocks.set(seq, {
          base: n(c.timestamp),
          refClock: clocks[0]!.clock_id,
          refNs: n(clocks[0]!.timestamp),
          unit: n(c.unit_multiplier_ns ?? 1),
          last: n(c.timestamp),
        });
    }
    const e = p.track_event;
    // Every packet's timestamp advances an incremental clock, whatever the packet carries.
    if (!e && p.timestamp === undefined) continue;
    const cid =
      p.timestamp_clock_id ??
      p.trace_packet_defaults?.timestamp_clock_id ??
      sequenceDefaultClock.get(seq) ??
      6;
    let ts = n(p.timestamp);
    let clockId = cid;
    if (cid >= 64) {
      const c = seqClocks.get(seq)!;
      c.last += ts;
      ts = c.refNs + (c.last - c.base) * c.unit;
      clockId = c.refClock;
    }
    if (clockId !== primary) ts += offsets.get(clockId) ?? 0;
    if (!e) continue;
    if (e.type === 1) begins++;
    events.push({
      track: e.track_uuid ?? defaults.get(seq) ?? "-",
      ts,
      order: events.length,
      type: e.type ?? 0,
      name: e.name ?? names.get(`${seq}:${e.name_iid}`) ?? "(unnamed)",
      thread: threadReadings[index],
    });
  }
  events.sort(
    (a, b) =>
      (a.track < b.track ? -1 : a.track > b.track ? 1 : 0) || a.ts - b.ts || a.order - b.order,
  );
  const durations = new Map<string, number[]>();
  // Thread time of a slice: its end's thread clock reading less its begin's, when both have one.
  const threadDurations = new Map<string, number[]>();
  const open: { name: string; ts: number; thread: number | undefined }[] = [];
  let track = "";
  for (const e of events) {
    if (e.track !== track) {
      open.length = 0;
      track = e.track;
    }
    if (e.type === 1) open.push(e);
    else if (e.type === 2 && open.length > 0) {
      const b = open.pop()!;
      durations.set(b.name, [...(durations.get(b.name) ?? []), e.ts - b.ts]);
      if (b.thread !== undefined && e.thread !== undefined && e.thread >= b.thread)
        threadDurations.set(b.name, [
          ...(threadDurations.get(b.name) ?? []),
          Math.round(e.thread - b.thread),
        ]);
    }
  }
  for (const list of [...durations.values(), ...threadDurations.values()])
    list.sort((a, b) => a - b);
  return { durations, threadDurations, begins };
}

describe("perfetto corpus", () => {
  for (const file of corpusFiles("perfetto")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      expect(
        detectAdapter({
          head: headOf(bytes),
          headBytes: bytes.subarray(0, 65536),
          displayName: file.name,
        })?.name,
      ).toBe("perfetto");
      const evidence = await extracted(perfetto, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const rows = traceEventBufferRows(evidence);
      const reference = referenceSlices(bytes);
      const slices = rows.filter((r) => r.phase === "B");
      expect(slices.length).toBe(reference.begins);
      // Matched slices (not flagged) have exactly the reference durations per name.
      const got = new Map<string, number[]>();
      for (const r of slices)
        if (r.flags === null)
          got.set(r.name as string, [...(got.get(r.name as string) ?? []), Number(r.dur_ns)]);
      for (const list of got.values()) list.sort((a, b) => a - b);
      expect(got).toEqual(reference.durations);
      // Their thread time, from the thread_time readings at begin and end.
      const threadGot = new Map<string, number[]>();
      for (const r of slices)
        if (r.flags === null && r.thread_dur_ns !== null)
          threadGot.set(r.name as string, [
            ...(threadGot.get(r.name as string) ?? []),
            Number(r.thread_dur_ns),
          ]);
      for (const list of threadGot.values()) list.sort((a, b) => a - b);
      expect(threadGot).toEqual(reference.threadDurations);
      for (const r of slices) expect(Number(r.depth)).toBeGreaterThanOrEqual(0);
      expect(evidence.summary.metrics).toContain("wall_time");
      await expectSameOutcome(perfetto, bytes, { displayName: file.name, chunkSize: 65519 });
    });
  }
});

/**
 * Each packet's extra counter readings, computed over the protobufjs-decoded packets as
 * Perfetto defines them: extra_counter_values go to the event's extra_counter_track_uuids
 * (else the sequence's defaults'), values scale by the CounterDescriptor's unit_multiplier
 * and incremental tracks accumulate per writing sequence (a delta is from that writer's
 * previous value), from 0 again whenever that sequence clears its incremental state.
 * `threadTime`: the track is a COUNTER_THREAD_TIME_NS one.
 */
function extraCounterReadings(
  packets: Msg[],
): { uuid: string; value: number; threadTime: boolean }[][] {
  const specs = new Map<
    string,
    { multiplier: number; incremental: boolean; threadTime: boolean }
  >();
  const defaults = new Map<number, string[]>();
  const totals = new Map<string, number>();
  return packets.map((p) => {
    const seq = p.trusted_packet_sequence_id ?? 0;
    if ((p.sequence_flags ?? 0) & 1 || p.incremental_state_cleared)
      for (const key of totals.keys()) if (key.startsWith(`${seq}/`)) totals.delete(key);
    const d = p.track_descriptor;
    if (d?.counter)
      specs.set(d.uuid, {
        multiplier: Number(d.counter.unit_multiplier ?? 1),
        incremental: !!d.counter.is_incremental,
        threadTime: d.counter.type === 1,
      });
    const extra = p.trace_packet_defaults?.track_event_defaults?.extra_counter_track_uuids;
    if (extra?.length) defaults.set(seq, extra);
    const values: string[] = p.track_event?.extra_counter_values ?? [];
    const uuids: string[] = p.track_event?.extra_counter_track_uuids?.length
      ? p.track_event.extra_counter_track_uuids
      : (defaults.get(seq) ?? []);
    return values.map((raw, k) => {
      const uuid = uuids[k]!;
      const spec = specs.get(uuid) ?? { multiplier: 1, incremental: false, threadTime: false };
      let value = Number(raw) * spec.multiplier;
      if (spec.incremental)
        totals.set(`${seq}/${uuid}`, (value += totals.get(`${seq}/${uuid}`) ?? 0));
      return { uuid, value, threadTime: spec.threadTime };
    });
  });
}

/** Counter readings per counter track uuid (see extraCounterReadings), sorted. */
function referenceExtraCounters(bytes: Uint8Array): Map<string, number[]> {
  const trace = Trace.toObject(Trace.decode(bytes), { longs: String }) as Msg;
  const out = new Map<string, number[]>();
  for (const readings of extraCounterReadings(trace.packet as Msg[]))
    for (const { uuid, value } of readings) out.set(uuid, [...(out.get(uuid) ?? []), value]);
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

describe("perfetto extra counters (Chrome's thread_time)", () => {
  for (const file of corpusFiles("perfetto")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      const want = referenceExtraCounters(bytes);
      const rows = traceEventBufferRows(
        await extracted(perfetto, {
          bytes,
          displayName: file.name,
          limits: DEFAULT_ADAPTER_LIMITS,
        }),
      ).filter((r) => r.phase === "C");
      const got = new Map<string, number[]>();
      for (const r of rows) {
        const uuid = String(r.track_id).replace(/^track:/, "");
        got.set(uuid, [...(got.get(uuid) ?? []), JSON.parse(r.args_json as string).value]);
      }
      for (const list of got.values()) list.sort((a, b) => a - b);
      expect(got).toEqual(want);
      if (want.size > 0) expect(rows.every((r) => r.name === "thread_time")).toBe(true);
    });
  }
});

describe("perfetto trace built with protobufjs", () => {
  const packets = [
    {
      trusted_packet_sequence_id: 7,
      incremental_state_cleared: true,
      track_descriptor: { uuid: 11, thread: { pid: 100, tid: 101, thread_name: "main" } },
    },
    {
      trusted_packet_sequence_id: 7,
      track_descriptor: { uuid: 10, process: { pid: 100, process_name: "app" } },
    },
    {
      trusted_packet_sequence_id: 7,
      sequence_flags: 1,
      timestamp: 1000,
      interned_data: {
        event_names: [
          { iid: 1, name: "outer" },
          { iid: 2, name: "inner" },
        ],
        event_categories: [{ iid: 1, name: "cat" }],
        debug_annotation_names: [{ iid: 1, name: "k" }],
        function_names: [
          { iid: 1, str: Buffer.from("main") },
          { iid: 2, str: Buffer.from("work") },
        ],
        frames: [
          { iid: 1, function_name_id: 1 },
          { iid: 2, function_name_id: 2 },
        ],
        callstacks: [
          { iid: 1, frame_ids: [1, 2] },
          { iid: 2, frame_ids: [1] },
        ],
      },
      track_event: {
        type: 1,
        track_uuid: 11,
        name_iid: 1,
        category_iids: [1],
        debug_annotations: [
          { name_iid: 1, int_value: 42 },
          { name: "s", string_value: "x" },
        ],
      },
    },
    {
      trusted_packet_sequence_id: 7,
      timestamp: 2000,
      track_event: { type: 1, track_uuid: 11, name_iid: 2 },
    },
    { trusted_packet_sequence_id: 7, timestamp: 5000, track_event: { type: 2, track_uuid: 11 } },
    { trusted_packet_sequence_id: 7, timestamp: 9000, track_event: { type: 2, track_uuid: 11 } },
    {
      trusted_packet_sequence_id: 7,
      timestamp: 9500,
      track_event: { type: 4, track_uuid: 12, counter_value: 5 },
    },
    {
      trusted_packet_sequence_id: 7,
      timestamp: 9600,
      track_event: { type: 3, track_uuid: 11, name: "mark" },
    },
    {
      trusted_packet_sequence_id: 7,
      timestamp: 10000,
      thread_descriptor: { pid: 100, tid: 101, thread_name: "main" },
      streaming_profile_packet: { callstack_iid: [1, 1, 2], timestamp_delta_us: [0, 10, 10] },
    },
  ];
  const bytes = Trace.encode(Trace.fromObject({ packet: packets })).finish();

  test(
    "counter tracks: unit_multiplier scales, incremental tracks accumulate, events are named " +
      "by their track",
    async () => {
      const counters = [
        {
          trusted_packet_sequence_id: 3,
          track_descriptor: {
            uuid: 50,
            parent_uuid: 11,
            static_name: "thread_time",
            counter: { type: 1, unit_multiplier: 1000, is_incremental: true },
          },
        },
        {
          trusted_packet_sequence_id: 3,
          track_descriptor: { uuid: 60, name: "queue", counter: { unit_multiplier: 2 } },
        },
        {
          trusted_packet_sequence_id: 3,
          track_descriptor: { uuid: 11, thread: { pid: 100, tid: 101 } },
        },
        {
          trusted_packet_sequence_id: 3,
          trace_packet_defaults: {
            track_event_defaults: { track_uuid: 11, extra_counter_track_uuids: [50] },
          },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 100,
          track_event: { type: 1, name: "work", extra_counter_values: [5] },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 200,
          track_event: { type: 4, track_uuid: 60, counter_value: 3 },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 300,
          track_event: { type: 4, track_uuid: 60, counter_value: -4 },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 400,
          track_event: { type: 2, extra_counter_values: [7] },
        },
        // An explicit uuid list overrides the defaults; a value beyond the list has no track.
        {
          trusted_packet_sequence_id: 3,
          timestamp: 500,
          track_event: {
            type: 3,
            name: "mark",
            extra_counter_track_uuids: [60],
            extra_counter_values: [10, 11],
          },
        },
        // Another sequence clearing its state leaves the total alone; the describing sequence's
        // clear restarts it from 0.
        {
          trusted_packet_sequence_id: 4,
          sequence_flags: 1,
          timestamp: 550,
          track_event: { type: 3, name: "other", track_uuid: 11 },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 600,
          track_event: { type: 3, name: "tick", extra_counter_values: [1] },
        },
        {
          trusted_packet_sequence_id: 3,
          sequence_flags: 1,
          timestamp: 700,
          track_event: {
            type: 3,
            name: "tock",
            track_uuid: 11,
            extra_counter_track_uuids: [50],
            extra_counter_values: [2],
          },
        },
        // Another sequence writing the same track keeps its own total (a delta is from its
        // writer's previous value), as Chrome's thread does when its writer changes: a slice
        // begun on one sequence and ended on the other takes each reading as its sequence has it.
        {
          trusted_packet_sequence_id: 5,
          sequence_flags: 1,
          timestamp: 800,
          track_event: {
            type: 3,
            name: "elsewhere",
            track_uuid: 11,
            extra_counter_track_uuids: [50],
            extra_counter_values: [20],
          },
        },
        {
          trusted_packet_sequence_id: 3,
          timestamp: 900,
          track_event: {
            type: 1,
            name: "span",
            track_uuid: 11,
            extra_counter_track_uuids: [50],
            extra_counter_values: [16],
          },
        },
        {
          trusted_packet_sequence_id: 5,
          timestamp: 1000,
          track_event: {
            type: 2,
            track_uuid: 11,
            extra_counter_track_uuids: [50],
            extra_counter_values: [3],
          },
        },
      ];
      const evidence = await extracted(perfetto, {
        bytes: Trace.encode(Trace.fromObject({ packet: counters })).finish(),
        displayName: "c.pftrace",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const rows = traceEventBufferRows(evidence).filter((r) => r.phase === "C");
      expect(rows.map((r) => [r.name, r.ts_ns, JSON.parse(r.args_json as string).value])).toEqual([
        ["thread_time", "100", 5000],
        ["thread_time", "400", 12000],
        ["thread_time", "600", 13000],
        ["thread_time", "700", 2000],
        ["thread_time", "800", 20000],
        ["thread_time", "900", 18000],
        ["thread_time", "1000", 23000],
        ["queue", "200", 6],
        ["queue", "300", -8],
        ["queue", "500", 20],
      ]);
      expect(
        evidence.limitations.find((l) => l.code === "extra_counters_without_track")?.count,
      ).toBe(1);
      // The thread_time counter (COUNTER_THREAD_TIME_NS) read at the B (5000) and the E (12000)
      // gives the slice's thread time.
      expect(traceEventBufferRows(evidence).find((r) => r.name === "work")).toMatchObject({
        phase: "B",
        dur_ns: "300",
        thread_dur_ns: "7000",
      });
      expect(traceEventBufferRows(evidence).find((r) => r.name === "span")).toMatchObject({
        phase: "B",
        dur_ns: "100",
        thread_dur_ns: "5000",
      });
    },
  );

  test(
    "slices nest, counters and instants are events, samples become frames and " + "stacks",
    async () => {
      const evidence = await extracted(perfetto, {
        bytes,
        displayName: "t.pftrace",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const rows = traceEventBufferRows(evidence);
      const outer = rows.find((r) => r.name === "outer")!;
      expect(outer).toMatchObject({
        phase: "B",
        dur_ns: "8000",
        depth: 0,
        category: "cat",
        track_id: "100:101",
        thread_name: "main",
        process_name: "app",
        ts_ns: "1000",
      });
      expect(JSON.parse(outer.args_json as string)).toEqual({ k: 42, s: "x" });
      expect(rows.find((r) => r.name === "inner")).toMatchObject({ dur_ns: "3000", depth: 1 });
      expect(rows.find((r) => r.name === "mark")).toMatchObject({ phase: "I", dur_ns: null });
      expect(JSON.parse(rows.find((r) => r.phase === "C")!.args_json as string)).toEqual({
        value: 5,
      });
      const frames = new Map(
        bufferRows(evidence.tables.frames).map((f) => [f.frame_id, f.function]),
      );
      const samples = bufferRows(evidence.tables.frame_measurements).filter(
        (m) => m.metric === "samples",
      );
      const self = Object.fromEntries(
        samples.map((m) => [
          frames.get(m.frame_id),
          [Number(m.self_value), Number(m.inclusive_value)],
        ]),
      );
      expect(self).toEqual({ main: [1, 3], work: [2, 2] });
      const stacks = bufferRows(evidence.tables.stacks).filter((s) => s.metric === "samples");
      expect(stacks.map((s) => Number(s.sample_count)).sort()).toEqual([1, 2]);
      await expectSameOutcome(perfetto, bytes, { chunkSize: 3 });
    },
  );

  test("truncated and corrupt traces fail with typed errors", async () => {
    for (const cut of [1, 5, bytes.length >> 1, bytes.length - 1])
      await expectSameOutcome(perfetto, bytes.subarray(0, cut), { chunkSize: 7 });
    const huge = Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
    let error: unknown;
    try {
      await extracted(perfetto, { bytes: huge, displayName: "x", limits: DEFAULT_ADAPTER_LIMITS });
    } catch (e) {
      error = e;
    }
    expect((error as { code?: string }).code).toBe("ARTIFACT_PARSE_FAILED");
  });
});
