/**
 * Chrome's V8 CPU profiles in Perfetto (protobuf) traces: the Profile/ProfileChunk
 * TrackEvents carry the same JSON as the JSON trace's events, in a debug annotation. The
 * Perfetto import must give the numbers the JSON import gives for the same profile
 * (one shared sample-tree implementation), whatever the per-event args limit, and real
 * recordings of one page in both forms must agree on where the CPU went.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { DEFAULT_ADAPTER_LIMITS, type AdapterLimits } from "../../src/adapters/adapter.ts";
import { Trace } from "../../src/adapters/perfetto/perfetto-schema.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { chromeTraceAdapter, cpuProfile, extractWith, limitation } from "./adapter-harness.ts";
import { rowsOf, totalsByFunction } from "./evidence-checks.ts";
import { functionKey } from "./reference-cpuprofile.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

const perfetto = adapterByName("perfetto")!;
type Msg = Record<string, any>;

const extractProto = (bytes: Uint8Array, limits: Partial<AdapterLimits> = {}): NormalizedEvidence =>
  perfetto.extract({ bytes, displayName: "t.pftrace", limits: { ...DEFAULT_ADAPTER_LIMITS, ...limits } });
const encode = (packets: Msg[]): Uint8Array => Trace.encode(Trace.fromObject({ packet: packets })).finish();

// The profile of the JSON-trace tests: Profile + three out-of-order chunks, nodes linked by parent.
const tree: [number, string, number][] = [
  [2, "main", 1],
  [3, "hot", 2],
  [4, "main", 3],
];
const profile = cpuProfile(tree, [3, 4, 3, 2, 4], [5, 10, 20, 30, 40]);
const nodes = profile.nodes.map(({ children: _children, ...node }) => ({ ...node, parent: tree.find(([id]) => id === node.id)?.[2] }));
const chunks: [number, Record<string, unknown>][] = [
  [1200, { cpuProfile: { samples: [2, 4] }, timeDeltas: [30, 40], endTime: profile.endTime }],
  [1100, { cpuProfile: { nodes: nodes.slice(0, 2), samples: [3] }, timeDeltas: [5] }],
  [1150, { cpuProfile: { nodes: nodes.slice(2), samples: [4, 3] }, timeDeltas: [10, 20] }],
];

function jsonTrace() {
  return [
    ...chunks.map(([ts, data]) => ({ ph: "P", name: "ProfileChunk", id: "0x7", pid: 9, tid: 99, ts, cat: "v8", args: { data } })),
    { ph: "M", name: "thread_name", pid: 9, tid: 1, args: { name: "CrRendererMain" } },
    { ph: "P", name: "Profile", id: "0x7", pid: 9, tid: 1, ts: 1000, args: { data: { startTime: profile.startTime } } },
  ];
}

/** A JSON value as Chrome's proto TracedValue writes it: nested dict entries and array values. */
function nested(name: string | null, value: unknown): Msg {
  const named = name === null ? {} : { name };
  if (Array.isArray(value)) return { ...named, array_values: value.map((v) => nested(null, v)) };
  if (value !== null && typeof value === "object") return { ...named, dict_entries: Object.entries(value).map(([k, v]) => nested(k, v)) };
  if (typeof value === "string") return { ...named, string_value: value };
  return Number.isInteger(value) ? { ...named, int_value: value } : { ...named, double_value: value };
}

/**
 * The same events as Chrome writes them in a Perfetto trace: the sampled thread's
 * sequence (1) holds the Profile, the profiler thread's (2) the chunks; names and the
 * annotation name interned per sequence; track_uuid 0 meaning "this sequence's thread";
 * timestamps in ns of CLOCK_MONOTONIC, the trace clock.
 */
function protoTrace(annotationOf: (data: Record<string, unknown>) => Msg, primaryClock = 3): Uint8Array {
  const thread = (seq: number, uuid: number, tid: number, name: string): Msg[] => [
    { trusted_packet_sequence_id: seq, sequence_flags: 1, track_descriptor: { uuid, thread: { pid: 9, tid, thread_name: name } } },
    {
      trusted_packet_sequence_id: seq, sequence_flags: 2, trace_packet_defaults: { timestamp_clock_id: 3, track_event_defaults: { track_uuid: uuid } },
      interned_data: { event_names: [{ iid: 1, name: seq === 1 ? "Profile" : "ProfileChunk" }], debug_annotation_names: [{ iid: 1, name: "data" }] },
    },
  ];
  const event = (seq: number, tsUs: number, data: Record<string, unknown>): Msg => ({
    trusted_packet_sequence_id: seq, sequence_flags: 2, timestamp: tsUs * 1000,
    track_event: { name_iid: 1, track_uuid: 0, category_iids: [], debug_annotations: [{ name_iid: 1, ...annotationOf(data) }], legacy_event: { phase: 80, unscoped_id: 7 } },
  });
  return encode([
    { clock_snapshot: { clocks: [{ clock_id: 3, timestamp: 0 }, { clock_id: 6, timestamp: BOOTTIME_AHEAD_NS }], primary_trace_clock: primaryClock } },
    ...thread(1, 101, 1, "CrRendererMain"),
    ...thread(2, 102, 99, "v8:ProfEvntProc"),
    ...chunks.map(([ts, data]) => event(2, ts, data)),
    event(1, 1000, { startTime: profile.startTime }),
  ]);
}

const BOOTTIME_AHEAD_NS = 500_000;

const legacyJson = (data: Record<string, unknown>): Msg => ({ legacy_json_value: JSON.stringify(data) });
const nestedDict = (data: Record<string, unknown>): Msg => {
  const { dict_entries } = nested(null, data);
  return { dict_entries };
};

function cpuRows(e: NormalizedEvidence) {
  const frames = new Map(rowsOf(e.tables.frames).map((f) => [f.frame_id, `${String(f.function)}@${String(f.file)}:${String(f.line)}`]));
  return rowsOf(e.tables.frame_measurements).filter((m) => m.metric === "cpu_time")
    .map((m) => [frames.get(m.frame_id), m.track_id, m.thread_name, m.self_value, m.inclusive_value, m.self_samples, m.inclusive_samples].map(String).join(" ")).sort();
}
const cpuStacks = (e: NormalizedEvidence) => rowsOf(e.tables.stacks).filter((r) => r.metric === "cpu_time").map((r) => [r.sample_count, r.duration_ns, r.first_ts_ns].map(String).join(" ")).sort();
const cpuEdges = (e: NormalizedEvidence) => rowsOf(e.tables.call_edges).filter((r) => r.metric === "cpu_time").map((r) => [r.self_value, r.inclusive_value, r.track_id].map(String).join(" ")).sort();

describe("V8 profiles in Perfetto traces", () => {
  for (const [encoding, annotationOf] of [["legacy JSON", legacyJson], ["nested dict", nestedDict]] as const) {
    test(`${encoding} annotations give the JSON trace's cpu_time measurements, edges and stacks`, () => {
      const fromJson = extractWith(chromeTraceAdapter, jsonTrace());
      const fromProto = extractProto(protoTrace(annotationOf));
      expect(cpuRows(fromJson).length).toBeGreaterThan(0);
      expect(cpuRows(fromProto)).toEqual(cpuRows(fromJson));
      expect(cpuEdges(fromProto)).toEqual(cpuEdges(fromJson));
      expect(cpuStacks(fromProto)).toEqual(cpuStacks(fromJson));
      expect(fromProto.summary).toMatchObject({ cpu_profiles: 1, cpu_samples: 5, total_cpu_time_ns: fromJson.summary.total_cpu_time_ns });
      expect(String(fromProto.summary.metrics)).toContain("cpu_time");
    });
  }

  test("the per-event args limit truncates the stored row, never the extracted samples", () => {
    const fromJson = extractWith(chromeTraceAdapter, jsonTrace());
    const fromProto = extractProto(protoTrace(legacyJson), { maxArgsBytes: 40 });
    expect(limitation(fromProto, "args_truncated")).toBeGreaterThan(0);
    expect(cpuRows(fromProto)).toEqual(cpuRows(fromJson));
  });

  test("profile times (CLOCK_MONOTONIC µs) move with the events when the trace clock is another", () => {
    const onMonotonic = extractProto(protoTrace(legacyJson));
    const onBoottime = extractProto(protoTrace(legacyJson, 6));
    const firstTs = (e: NormalizedEvidence) => rowsOf(e.tables.stacks).filter((r) => r.metric === "cpu_time").map((r) => BigInt(r.first_ts_ns as bigint)).sort();
    expect(firstTs(onBoottime)).toEqual(firstTs(onMonotonic).map((ns) => ns + BigInt(BOOTTIME_AHEAD_NS)));
    expect(cpuRows(onBoottime)).toEqual(cpuRows(onMonotonic));
  });

  test("flow links are not imported, and say so", () => {
    const packets = (Trace.toObject(Trace.decode(protoTrace(legacyJson)), { longs: Number }) as Msg).packet as Msg[];
    const flows = [{ flow_ids: [5] }, { terminating_flow_ids: [5] }, { legacy_event: { phase: 73, bind_id: 9 } }, { legacy_event: { phase: 73, flow_direction: 1 } }];
    const withFlows = flows.map((extra, k) => ({ trusted_packet_sequence_id: 1, timestamp: 2_000_000 + k, track_event: { type: 3, name: "step", ...extra } }));
    expect(limitation(extractProto(encode(packets)), "flows_not_imported")).toBeUndefined();
    expect(limitation(extractProto(encode([...packets, ...withFlows])), "flows_not_imported")).toBe(4);
  });

  test("samples count against the event limit as chunks arrive (4 events, 5 samples)", () => {
    expect(() => extractProto(protoTrace(legacyJson), { maxEvents: 4 })).toThrow(/CPU profile samples/);
  });

  test("chunks whose Profile is missing are reported, not imported", () => {
    const bytes = protoTrace(legacyJson);
    const packets = (Trace.toObject(Trace.decode(bytes), { longs: Number }) as Msg).packet as Msg[];
    const withoutProfile = encode(packets.filter((p) => !(p.trusted_packet_sequence_id === 1 && p.track_event)));
    const evidence = extractProto(withoutProfile);
    expect(cpuRows(evidence)).toEqual([]);
    expect(limitation(evidence, "orphan_profile_chunks")).toBe(3);
  });
});

// ---- Real recordings of one page (fixtures/chromium/fib-page.html: 400 ms in fib) ----

const NON_JS = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"]);

/** Samples per "function @ url" and per profile, counted straight from ProfileChunk data (no adapter code). */
function countSamples(chunkData: { key: string; data: any }[]): Map<string, Map<string, number>> {
  const names = new Map<string, Map<number, string>>();
  const counts = new Map<string, Map<string, number>>();
  for (const { key, data } of chunkData) {
    const known = names.get(key) ?? new Map<number, string>();
    names.set(key, known);
    for (const node of data?.cpuProfile?.nodes ?? []) known.set(node.id, functionKey(node.callFrame.functionName || "(anonymous)", node.callFrame.url || null));
  }
  for (const { key, data } of chunkData) {
    const perFunction = counts.get(key) ?? new Map<string, number>();
    counts.set(key, perFunction);
    for (const id of data?.cpuProfile?.samples ?? []) {
      const fn = names.get(key)!.get(id)!;
      perFunction.set(fn, (perFunction.get(fn) ?? 0) + 1);
    }
  }
  return counts;
}

function jsonChunks(text: string): { key: string; data: any }[] {
  const parsed = JSON.parse(text);
  const events: any[] = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  return events.filter((e) => e.name === "ProfileChunk").map((e) => ({ key: `${e.pid}/${e.id}`, data: e.args?.data }));
}

function protoChunks(bytes: Uint8Array): { key: string; data: any }[] {
  const packets = (Trace.toObject(Trace.decode(bytes), { longs: String }) as Msg).packet as Msg[];
  const eventNames = new Map<string, string>();
  const out: { key: string; data: any }[] = [];
  for (const p of packets) {
    const seq = p.trusted_packet_sequence_id;
    for (const n of p.interned_data?.event_names ?? []) eventNames.set(`${seq}/${n.iid}`, n.name);
    const e = p.track_event;
    if (!e || eventNames.get(`${seq}/${e.name_iid}`) !== "ProfileChunk") continue;
    for (const a of e.debug_annotations ?? []) if (a.legacy_json_value) out.push({ key: `${seq}/${e.legacy_event?.unscoped_id}`, data: JSON.parse(a.legacy_json_value) });
  }
  return out;
}

/** Self samples per function as imported, summed over tracks (the (root) container is not a frame). */
function importedSamples(evidence: NormalizedEvidence): Map<string, number> {
  return new Map([...totalsByFunction(evidence, "cpu_time")].filter(([, v]) => v.selfSamples > 0).map(([k, v]) => [k, v.selfSamples]));
}

function summed(counts: Map<string, Map<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const perFunction of counts.values()) for (const [fn, n] of perFunction) if (fn !== functionKey("(root)", null)) out.set(fn, (out.get(fn) ?? 0) + n);
  return out;
}

/** The top JavaScript function of the profile that ran it, and its share of that profile's JavaScript samples. */
function topJs(counts: Map<string, Map<string, number>>): { fn: string; samples: number; share: number } {
  let best = { fn: "", samples: 0, share: 0 };
  for (const perFunction of counts.values()) {
    const js = [...perFunction].filter(([fn]) => !NON_JS.has(fn.split(" @")[0]!.trim()));
    const total = js.reduce((s, [, n]) => s + n, 0);
    for (const [fn, n] of js) if (n > best.samples) best = { fn, samples: n, share: n / total };
  }
  return best;
}

function compareForms(json: { text: string; evidence: NormalizedEvidence }, proto: { bytes: Uint8Array; evidence: NormalizedEvidence }) {
  const jsonCounts = countSamples(jsonChunks(json.text));
  const protoCounts = countSamples(protoChunks(proto.bytes));
  // Each import counts exactly what its own file holds.
  expect(importedSamples(json.evidence)).toEqual(summed(jsonCounts));
  expect(importedSamples(proto.evidence)).toEqual(summed(protoCounts));
  // The two recordings of the page agree on where its JavaScript time went.
  const [fromJson, fromProto] = [topJs(jsonCounts), topJs(protoCounts)];
  expect(fromJson.fn).toStartWith("fib @ file://");
  expect(fromProto.fn.split(" @")[0]).toBe("fib");
  expect(fromJson.share).toBeGreaterThan(0.9);
  expect(Math.abs(fromProto.share - fromJson.share)).toBeLessThan(0.05);
  return { fromJson, fromProto };
}

describe("a Chromium recording in both forms", () => {
  const fixture = join(import.meta.dir, "../../fixtures/chromium");

  test("committed pair: the proto import finds the JSON import's top function", async () => {
    const text = gunzipSync(readFileSync(join(fixture, "fib.json.gz"))).toString("utf8");
    const bytes = new Uint8Array(gunzipSync(readFileSync(join(fixture, "fib.pftrace.gz"))));
    const json = { text, evidence: extractWith(chromeTraceAdapter, JSON.parse(text)) };
    const proto = { bytes, evidence: extractProto(bytes) };
    expect(Number(proto.evidence.summary.cpu_samples)).toBeGreaterThan(1000);
    const { fromProto } = compareForms(json, proto);
    // The recording's own numbers, counted by hand once: fib took 1275 of the page's samples.
    expect(fromProto.samples).toBe(1275);
    // Streamed in small chunks, the proto import gives the same evidence.
    await expectSameOutcome(perfetto, bytes, { displayName: "fib.pftrace", chunkSize: 4099 });
  });

  const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
  test.skipIf(chromium === undefined)("fresh recording with the installed Chromium", () => {
    const dir = mkdtempSync(join(tmpdir(), "flameox-chromium-"));
    try {
      const record = (format: "json" | "proto", file: string): void => {
        const run = spawnSync(chromium!, [
          "--headless", "--no-sandbox", "--disable-gpu", `--user-data-dir=${join(dir, `profile-${format}`)}`,
          "--trace-startup=disabled-by-default-v8.cpu_profiler,blink.user_timing,-*", `--trace-startup-format=${format}`,
          `--trace-startup-file=${file}`, "--trace-startup-duration=4", "--virtual-time-budget=1", "--dump-dom",
          `file://${join(fixture, "fib-page.html")}`,
        ], { timeout: 60_000, stdio: ["ignore", "ignore", "ignore"] });
        expect(run.error).toBeUndefined();
      };
      record("json", join(dir, "t.json"));
      record("proto", join(dir, "t.pftrace"));
      const text = readFileSync(join(dir, "t.json"), "utf8");
      const bytes = new Uint8Array(readFileSync(join(dir, "t.pftrace")));
      compareForms({ text, evidence: extractWith(chromeTraceAdapter, JSON.parse(text)) }, { bytes, evidence: extractProto(bytes) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
