/**
 * Chrome's V8 CPU profiles in Perfetto (protobuf) traces: the Profile/ProfileChunk
 * TrackEvents carry the same JSON as the JSON trace's events, in a debug annotation. The
 * Perfetto import must give the numbers the JSON import gives for the same profile
 * (one shared sample-tree implementation), whatever the per-event args limit. Real
 * recordings of one run in both forms: chromium-recording-pair.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS, type AdapterLimits } from "../../src/adapters/adapter.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import {
  chromeTraceAdapter,
  cpuProfile,
  extractWith,
  limitation,
  extracted,
} from "./adapter-harness.ts";
import { rowsOf, traceEventRows } from "./evidence-checks.ts";
import { type Msg, v8ProfileEvent, v8ProfileThread } from "./v8-profile-packets.ts";

const perfetto = adapterByName("perfetto")!;

const extractProto = async (
  bytes: Uint8Array,
  limits: Partial<AdapterLimits> = {},
): Promise<NormalizedEvidence> =>
  await extracted(perfetto, {
    bytes,
    displayName: "t.pftrace",
    limits: { ...DEFAULT_ADAPTER_LIMITS, ...limits },
  });
const encode = (packets: Msg[]): Uint8Array =>
  Trace.encode(Trace.fromObject({ packet: packets })).finish();

// The profile of the JSON-trace tests: Profile + three out-of-order chunks, nodes linked by parent.
const tree: [number, string, number][] = [
  [2, "main", 1],
  [3, "hot", 2],
  [4, "main", 3],
];
const profile = cpuProfile(tree, [3, 4, 3, 2, 4], [5, 10, 20, 30, 40]);
const nodes = profile.nodes.map(({ children: _children, ...node }) => ({
  ...node,
  parent: tree.find(([id]) => id === node.id)?.[2],
}));
type Chunks = [number, Record<string, unknown>][];
const chunks: Chunks = [
  [1200, { cpuProfile: { samples: [2, 4] }, timeDeltas: [30, 40], endTime: profile.endTime }],
  [1100, { cpuProfile: { nodes: nodes.slice(0, 2), samples: [3] }, timeDeltas: [5] }],
  [1150, { cpuProfile: { nodes: nodes.slice(2), samples: [4, 3] }, timeDeltas: [10, 20] }],
];

function jsonTrace(chunkList: Chunks = chunks) {
  return [
    ...chunkList.map(([ts, data]) => ({
      ph: "P",
      name: "ProfileChunk",
      id: "0x7",
      pid: 9,
      tid: 99,
      ts,
      cat: "v8",
      args: { data },
    })),
    { ph: "M", name: "thread_name", pid: 9, tid: 1, args: { name: "CrRendererMain" } },
    {
      ph: "P",
      name: "Profile",
      id: "0x7",
      pid: 9,
      tid: 1,
      ts: 1000,
      args: { data: { startTime: profile.startTime } },
    },
  ];
}

/** A JSON value as Chrome's proto TracedValue writes it: nested dict entries and array values. */
function nested(name: string | null, value: unknown): Msg {
  const named = name === null ? {} : { name };
  if (Array.isArray(value)) return { ...named, array_values: value.map((v) => nested(null, v)) };
  if (value !== null && typeof value === "object")
    return { ...named, dict_entries: Object.entries(value).map(([k, v]) => nested(k, v)) };
  if (typeof value === "string") return { ...named, string_value: value };
  return Number.isInteger(value)
    ? { ...named, int_value: value }
    : { ...named, double_value: value };
}

/**
 * The same events as Chrome writes them in a Perfetto trace: the sampled thread's
 * sequence (1) holds the Profile, the profiler thread's (2) the chunks; names and the
 * annotation name interned per sequence; track_uuid 0 meaning "this sequence's thread";
 * timestamps in ns of CLOCK_MONOTONIC, the trace clock.
 */
function protoTrace(
  annotationOf: (data: Record<string, unknown>) => Msg,
  primaryClock = 3,
  chunkList: Chunks = chunks,
  extra: Msg[] = [],
): Uint8Array {
  return encode([
    {
      clock_snapshot: {
        clocks: [
          { clock_id: 3, timestamp: 0 },
          { clock_id: 6, timestamp: BOOTTIME_AHEAD_NS },
        ],
        primary_trace_clock: primaryClock,
      },
    },
    ...v8ProfileThread(1, 101, 1, "CrRendererMain"),
    ...v8ProfileThread(2, 102, 99, "v8:ProfEvntProc"),
    ...chunkList.map(([ts, data]) => v8ProfileEvent(2, ts, annotationOf(data))),
    v8ProfileEvent(1, 1000, annotationOf({ startTime: profile.startTime })),
    ...extra,
  ]);
}

const BOOTTIME_AHEAD_NS = 500_000;

const legacyJson = (data: Record<string, unknown>): Msg => ({
  legacy_json_value: JSON.stringify(data),
});
const nestedDict = (data: Record<string, unknown>): Msg => {
  const { dict_entries } = nested(null, data);
  return { dict_entries };
};

function cpuRows(e: NormalizedEvidence) {
  const frames = new Map(
    rowsOf(e.tables.frames).map((f) => [
      f.frame_id,
      `${String(f.function)}@${String(f.file)}:${String(f.line)}`,
    ]),
  );
  return rowsOf(e.tables.frame_measurements)
    .filter((m) => m.metric === "cpu_time")
    .map((m) =>
      [
        frames.get(m.frame_id),
        m.track_id,
        m.thread_name,
        m.self_value,
        m.inclusive_value,
        m.self_samples,
        m.inclusive_samples,
      ]
        .map(String)
        .join(" "),
    )
    .sort();
}
const cpuStacks = (e: NormalizedEvidence) =>
  rowsOf(e.tables.stacks)
    .filter((r) => r.metric === "cpu_time")
    .map((r) => [r.sample_count, r.duration_ns, r.first_ts_ns].map(String).join(" "))
    .sort();
const cpuEdges = (e: NormalizedEvidence) =>
  rowsOf(e.tables.call_edges)
    .filter((r) => r.metric === "cpu_time")
    .map((r) => [r.self_value, r.inclusive_value, r.track_id].map(String).join(" "))
    .sort();

describe("V8 profiles in Perfetto traces", () => {
  for (const [encoding, annotationOf] of [
    ["legacy JSON", legacyJson],
    ["nested dict", nestedDict],
  ] as const) {
    test(
      `${encoding} annotations give the JSON trace's cpu_time measurements, edges and ` + `stacks`,
      async () => {
        const fromJson = await extractWith(chromeTraceAdapter, jsonTrace());
        const fromProto = await extractProto(protoTrace(annotationOf));
        expect(cpuRows(fromJson).length).toBeGreaterThan(0);
        expect(cpuRows(fromProto)).toEqual(cpuRows(fromJson));
        expect(cpuEdges(fromProto)).toEqual(cpuEdges(fromJson));
        expect(cpuStacks(fromProto)).toEqual(cpuStacks(fromJson));
        expect(fromProto.summary).toMatchObject({
          cpu_profiles: 1,
          cpu_samples: 5,
          total_cpu_time_ns: fromJson.summary.total_cpu_time_ns,
        });
        expect(String(fromProto.summary.metrics)).toContain("cpu_time");
      },
    );
  }

  test(
    "the per-event args limit truncates the " + "stored row, never the extracted samples",
    async () => {
      const fromJson = await extractWith(chromeTraceAdapter, jsonTrace());
      const fromProto = await extractProto(protoTrace(legacyJson), { maxArgsBytes: 40 });
      expect(limitation(fromProto, "args_truncated")).toBeGreaterThan(0);
      expect(cpuRows(fromProto)).toEqual(cpuRows(fromJson));
    },
  );

  test(
    "profile times (CLOCK_MONOTONIC µs) move with the events when the trace clock is " + "another",
    async () => {
      const onMonotonic = await extractProto(protoTrace(legacyJson));
      const onBoottime = await extractProto(protoTrace(legacyJson, 6));
      const firstTs = (e: NormalizedEvidence) =>
        rowsOf(e.tables.stacks)
          .filter((r) => r.metric === "cpu_time")
          .map((r) => BigInt(r.first_ts_ns as bigint))
          .sort();
      expect(firstTs(onBoottime)).toEqual(
        firstTs(onMonotonic).map((ns) => ns + BigInt(BOOTTIME_AHEAD_NS)),
      );
      expect(cpuRows(onBoottime)).toEqual(cpuRows(onMonotonic));
    },
  );

  test("flow links are not imported, and say so", async () => {
    const packets = (Trace.toObject(Trace.decode(protoTrace(legacyJson)), { longs: Number }) as Msg)
      .packet as Msg[];
    const flows = [
      { flow_ids: [5] },
      { terminating_flow_ids: [5] },
      { legacy_event: { phase: 73, bind_id: 9 } },
      { legacy_event: { phase: 73, flow_direction: 1 } },
    ];
    const withFlows = flows.map((extra, k) => ({
      trusted_packet_sequence_id: 1,
      timestamp: 2_000_000 + k,
      track_event: { type: 3, name: "step", ...extra },
    }));
    expect(limitation(await extractProto(encode(packets)), "flows_not_imported")).toBeUndefined();
    expect(
      limitation(await extractProto(encode([...packets, ...withFlows])), "flows_not_imported"),
    ).toBe(4);
  });

  test("samples count against the event limit as chunks arrive (4 events, 5 samples)", async () => {
    await expect(extractProto(protoTrace(legacyJson), { maxEvents: 4 })).rejects.toThrow(
      /CPU profile samples/,
    );
  });

  test("chunks whose Profile is missing are reported, not imported", async () => {
    const bytes = protoTrace(legacyJson);
    const packets = (Trace.toObject(Trace.decode(bytes), { longs: Number }) as Msg).packet as Msg[];
    const withoutProfile = encode(
      packets.filter((p) => !(p.trusted_packet_sequence_id === 1 && p.track_event)),
    );
    const evidence = await extractProto(withoutProfile);
    expect(cpuRows(evidence)).toEqual([]);
    expect(limitation(evidence, "orphan_profile_chunks")).toBe(3);
  });

  test("anonymous functions are reported as missing symbols in both forms alike", async () => {
    const named = chunks.map(([ts, data]): [number, Record<string, unknown>] => [
      ts,
      structuredClone(data),
    ]);
    const cpu = named[1]![1].cpuProfile as { nodes: { callFrame: { functionName: string } }[] };
    cpu.nodes[1]!.callFrame.functionName = "";
    const fromJson = await extractWith(chromeTraceAdapter, jsonTrace(named));
    const fromProto = await extractProto(protoTrace(legacyJson, 3, named));
    expect(limitation(fromJson, "missing_symbols")).toBe(1);
    expect(limitation(fromProto, "missing_symbols")).toBe(1);
    expect(
      limitation(await extractProto(protoTrace(legacyJson)), "missing_symbols"),
    ).toBeUndefined();
  });

  test(
    "a legacy event with track_uuid 0 (Chrome's marks) is on its sequence's thread; a typed " +
      "one is not",
    async () => {
      const marks: Msg[] = [
        {
          trusted_packet_sequence_id: 1,
          timestamp: 3_000_000,
          track_event: { name: "navigationStart", track_uuid: 0, legacy_event: { phase: 82 } },
        },
        {
          trusted_packet_sequence_id: 1,
          timestamp: 3_000_001,
          track_event: { name: "typed", type: 3, track_uuid: 0 },
        },
      ];
      const rows = traceEventRows(await extractProto(protoTrace(legacyJson, 3, chunks, marks)));
      const where = (name: string) =>
        rows.filter((r) => r.name === name).map((r) => [r.phase, r.pid, r.tid, r.thread_name]);
      expect(where("navigationStart")).toEqual([["R", "9", "1", "CrRendererMain"]]);
      expect(where("typed")).toEqual([["I", null, null, null]]);
    },
  );

  test(
    "a process_name that is the command line (Perfetto's default) does not replace the name " +
      "Chrome gave",
    async () => {
      const cmd = "/usr/lib/chromium/chromium --type=renderer";
      const process = (uuid: number, pid: number, name: string, cmdline: string[]): Msg => ({
        trusted_packet_sequence_id: 1,
        track_descriptor: { uuid, process: { pid, process_name: name, cmdline } },
      });
      const thread = (uuid: number, pid: number): Msg => ({
        trusted_packet_sequence_id: 1,
        track_descriptor: { uuid, thread: { pid, tid: pid, thread_name: "main" } },
      });
      const slice = (uuid: number, ts: number): Msg => ({
        trusted_packet_sequence_id: 1,
        timestamp: ts,
        track_event: { type: 3, name: "tick", track_uuid: uuid },
      });
      const packets = [
        process(1, 7, "Renderer", [cmd]),
        process(1, 7, cmd, [cmd]),
        thread(11, 7),
        slice(11, 10),
        process(2, 8, cmd, [cmd]),
        thread(12, 8),
        slice(12, 20),
        process(3, 6, "Utility", [cmd]),
        process(3, 6, "Network Service", [cmd]),
        thread(13, 6),
        slice(13, 30),
      ];
      const names = traceEventRows(await extractProto(encode(packets)))
        .filter((r) => r.name === "tick")
        .map((r) => [r.pid, r.process_name]);
      expect(names).toEqual([
        ["7", "Renderer"],
        ["8", cmd],
        ["6", "Network Service"],
      ]);
    },
  );
});
