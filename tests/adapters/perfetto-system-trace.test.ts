/**
 * Perfetto traces as the tracing service writes them on Android and Linux: packets in
 * zlib-compressed groups (compressed_packets), atrace marks in ftrace `print` events,
 * process_tree names and process_stats memory counters. Compressed corpus traces must give exactly
 * the evidence of the
 * original; atrace marks must give the slices, instants and counters computed by hand.
 */
import { describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { parseAtrace } from "../../src/adapters/perfetto/atrace-marks.ts";
import { MAX_INFLATED_GROUP_BYTES } from "../../src/adapters/perfetto/compressed-packets.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { bufferRows, traceEventBufferRows } from "./stream-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";
import { extracted } from "./adapter-harness.ts";

const perfetto = adapterByName("perfetto")!;
type Msg = Record<string, any>;

const extract = async (bytes: Uint8Array): Promise<NormalizedEvidence> =>
  await extracted(perfetto, { bytes, displayName: "t.pftrace", limits: DEFAULT_ADAPTER_LIMITS });
const encode = (packets: Msg[]): Uint8Array =>
  Trace.encode(Trace.fromObject({ packet: packets })).finish();
const group = (packets: Msg[]): Msg => ({ compressed_packets: deflateSync(encode(packets)) });

async function failure(bytes: Uint8Array): Promise<FlameoxError> {
  try {
    await extract(bytes);
  } catch (error) {
    if (error instanceof FlameoxError) return error;
    throw error;
  }
  throw new Error("the import succeeded");
}

/** The original packets: the first `plain` as they are, the rest in deflated groups of `size`. */
function compressTrace(
  bytes: Uint8Array,
  plain: number,
  size: number,
): { bytes: Uint8Array; groups: number } {
  const packets = (Trace.toObject(Trace.decode(bytes), { longs: String, bytes: Buffer }) as Msg)
    .packet as Msg[];
  const out = packets.slice(0, plain);
  let groups = 0;
  for (let at = plain; at < packets.length; at += size, groups++)
    out.push(group(packets.slice(at, at + size)));
  return { bytes: encode(out), groups };
}

describe("compressed packets", () => {
  for (const file of corpusFiles("perfetto")) {
    test(`${file.name}: deflated groups give the original's evidence`, async () => {
      const original = loadPayload(file.path);
      const { bytes, groups } = compressTrace(original, 3, 97);
      expect(bytes.length).toBeLessThan(original.length);
      const want = await extract(original);
      const got = await extract(bytes);
      for (const table of [
        "trace_events",
        "frames",
        "frame_measurements",
        "call_edges",
        "stacks",
      ] as const) {
        expect(bufferRows(got.tables[table])).toEqual(bufferRows(want.tables[table]));
      }
      expect(got.limitations).toEqual(want.limitations);
      // Each group is one more packet (its carrier) than the original had.
      expect(got.summary).toEqual({
        ...want.summary,
        packets: Number(want.summary.packets) + groups,
        compressed_groups: groups,
      });
      await expectSameOutcome(perfetto, bytes, { displayName: file.name, chunkSize: 4099 });
      // A trace that starts with a group (every packet compressed) is still detected.
      const all = compressTrace(original, 0, 97).bytes;
      expect(
        detectAdapter({ head: "", headBytes: all.subarray(0, 65536), displayName: "trace" })?.name,
      ).toBe("perfetto");
    });
  }

  test(
    "a group that is not zlib data, one that inflates past the limit, and nested groups fail " +
      "typed",
    async () => {
      const corrupt = await failure(
        encode([{ compressed_packets: Buffer.from("not deflate data") }]),
      );
      expect(corrupt.code).toBe("ARTIFACT_PARSE_FAILED");
      expect(corrupt.message).toContain("zlib");
      const bomb = await failure(
        encode([
          { compressed_packets: deflateSync(new Uint8Array(MAX_INFLATED_GROUP_BYTES + 1024)) },
        ]),
      );
      expect(bomb.code).toBe("ARTIFACT_TOO_LARGE");
      const nested = await failure(
        encode([group([group([{ timestamp: 1, track_event: { type: 3, name: "x" } }])])]),
      );
      expect(nested.code).toBe("ARTIFACT_PARSE_FAILED");
      expect(nested.message).toContain("nested");
      // A truncated packet inside a group is a parse error of the group, not a crash.
      const inner = encode([{ timestamp: 1, track_event: { type: 3, name: "x" } }]);
      const truncated = await failure(
        encode([{ compressed_packets: deflateSync(inner.subarray(0, inner.length - 2)) }]),
      );
      expect(truncated.code).toBe("ARTIFACT_PARSE_FAILED");
    },
  );
});

describe("atrace marks", () => {
  test("the mark forms parse as Trace Processor reads them", () => {
    const mark = (text: string) => parseAtrace(new TextEncoder().encode(text));
    expect(mark("B|100|doFrame 42\n")).toEqual({ kind: "begin", tgid: 100, name: "doFrame 42" });
    expect(mark("B|100|name|with|bars")).toEqual({
      kind: "begin",
      tgid: 100,
      name: "name|with|bars",
    });
    expect(mark("E|100\n")).toEqual({ kind: "end", tgid: 100 });
    expect(mark("E\n")).toEqual({ kind: "end", tgid: null });
    expect(mark("C|100|queue|-7|gfx\n")).toEqual({
      kind: "counter",
      tgid: 100,
      name: "queue",
      value: -7,
    });
    expect(mark("I|100|vsync")).toEqual({ kind: "instant", tgid: 100, name: "vsync" });
    expect(mark("S|100|load|1")).toEqual({
      kind: "async-begin",
      tgid: 100,
      track: null,
      name: "load",
      cookie: "1",
    });
    expect(mark("F|100|load|-01\n")).toEqual({
      kind: "async-end",
      tgid: 100,
      track: null,
      name: "load",
      cookie: "-1",
    });
    expect(mark("G|100|net|fetch a|789")).toEqual({
      kind: "async-begin",
      tgid: 100,
      track: "net",
      name: "fetch a",
      cookie: "789",
    });
    expect(mark("H|100|net|fetch a|789")).toEqual({
      kind: "async-end",
      tgid: 100,
      track: "net",
      name: null,
      cookie: "789",
    });
    expect(mark("H|100|net|789")).toEqual({
      kind: "async-end",
      tgid: 100,
      track: "net",
      name: null,
      cookie: "789",
    });
    expect(mark("N|100|net|retry")).toEqual({
      kind: "track-instant",
      tgid: 100,
      track: "net",
      name: "retry",
    });
    // Trace Processor's reading: an empty B name is named, a C value must be an integer, B/C/I need
    // a numeric tgid.
    expect(mark("B|100")).toEqual({ kind: "begin", tgid: 100, name: "[empty slice name]" });
    expect(mark("I|100|vsync|extra")).toEqual({ kind: "instant", tgid: 100, name: "vsync" });
    for (const text of [
      "",
      "\n",
      "hello world",
      "C|100|queue|",
      "C|100|queue|abc",
      "C|100|queue|1.5",
      "B|x|name",
      "B",
      "I|100|",
      "trace_event_clock_sync: parent_ts=1.0",
      "S|100|load",
      "S|100|load|x",
      "S|100||1",
      "S|x|load|1",
      "F|100|load|",
      "G|100|net|fetch",
      "G|100||fetch|1",
      "H|100|net",
      "H|100||1",
      "N|100|net",
      "N|100||retry",
      "U|100|x|1",
    ]) {
      expect(mark(text)).toBeNull();
    }
  });

  // tid 100 is the main thread of process 100; tid 101 is its RenderThread.
  const print = (timestamp: number, tid: number, buf: string): Msg => ({
    timestamp,
    pid: tid,
    print: { ip: 1, buf },
  });
  const packets: Msg[] = [
    {
      timestamp: 10,
      process_tree: {
        processes: [{ pid: 100, ppid: 1, cmdline: ["/system/bin/app", "--flag"] }],
        threads: [
          { tid: 100, tgid: 100, name: "app" },
          { tid: 101, tgid: 100, name: "RenderThread" },
        ],
      },
    },
    {
      ftrace_events: {
        cpu: 0,
        event: [
          print(1000, 100, "B|100|outer\n"),
          {
            timestamp: 1050,
            pid: 0,
            sched_switch: { prev_comm: "swapper", prev_pid: 0, next_comm: "app", next_pid: 100 },
          },
          print(1100, 100, "S|100|load|1\n"),
          // A second S of an open name and cookie is dropped (Trace Processor's legacy unnestable
          // slices).
          print(1150, 100, "S|100|load|1\n"),
          print(1200, 101, "B|100|draw\n"),
          print(1300, 101, "I|100|vsync\n"),
          print(1400, 101, "C|100|queue|3\n"),
          print(1500, 100, "B|100|inner\n"),
        ],
      },
    },
    {
      ftrace_events: {
        cpu: 1,
        event: [
          print(1600, 101, "C|100|queue|5\n"),
          print(1800, 101, "E\n"),
          print(1900, 100, "kernel says hello\n"),
          print(2000, 100, "E|100\n"),
          print(3000, 100, "F|100|load|1\n"),
          // A named-track async slice and instant; the end arrives before its begin (another CPU's
          // bundle came first).
          print(3100, 101, "H|100|net|2\n"),
          print(3200, 101, "N|100|net|retry\n"),
          print(5000, 100, "E|100\n"),
        ],
      },
    },
    { ftrace_events: { cpu: 2, event: [print(2500, 101, "G|100|net|fetch|2\n")] } },
  ];

  test(
    "slices, instants and counters land on the writing thread's track, named by " + "process_tree",
    async () => {
      // Compressed and plain give the same rows: the marks path and the expansion compose.
      for (const bytes of [encode(packets), encode([packets[0]!, group(packets.slice(1))])]) {
        const evidence = await extract(bytes);
        const rows = traceEventBufferRows(evidence);
        const main = {
          track_id: "100:100",
          pid: "100",
          tid: "100",
          process_name: "/system/bin/app",
          thread_name: "app",
        };
        const render = {
          track_id: "100:101",
          pid: "100",
          tid: "101",
          process_name: "/system/bin/app",
          thread_name: "RenderThread",
        };
        expect(rows.find((r) => r.name === "outer")).toMatchObject({
          ...main,
          phase: "B",
          ts_ns: "1000",
          dur_ns: "4000",
          depth: 0,
        });
        expect(rows.find((r) => r.name === "inner")).toMatchObject({
          ...main,
          phase: "B",
          ts_ns: "1500",
          dur_ns: "500",
          depth: 1,
        });
        expect(rows.find((r) => r.name === "draw")).toMatchObject({
          ...render,
          phase: "B",
          ts_ns: "1200",
          dur_ns: "600",
          depth: 0,
        });
        expect(rows.find((r) => r.name === "vsync")).toMatchObject({
          ...render,
          phase: "I",
          ts_ns: "1300",
          dur_ns: null,
        });
        const counters = rows.filter((r) => r.phase === "C");
        expect(
          counters.map((r) => [r.name, r.ts_ns, JSON.parse(r.args_json as string), r.pid]),
        ).toEqual([
          ["queue", "1400", { value: 3 }, "100"],
          ["queue", "1600", { value: 5 }, "100"],
        ]);
        // Async slices: a process track per name (S/F) or named track (G/H) and cookie; N is an
        // instant on the named track.
        const process = { pid: "100", tid: null, process_name: "/system/bin/app" };
        expect(rows.find((r) => r.name === "load")).toMatchObject({
          ...process,
          track_id: "track:atrace-async|100|load|1",
          thread_name: "load",
          phase: "B",
          ts_ns: "1100",
          dur_ns: "1900",
          depth: 0,
          args_json: '{"cookie":1}',
        });
        expect(rows.find((r) => r.name === "fetch")).toMatchObject({
          ...process,
          track_id: "track:atrace-track-async|100|net|2",
          thread_name: "net",
          phase: "B",
          ts_ns: "2500",
          dur_ns: "600",
          depth: 0,
        });
        expect(rows.find((r) => r.name === "retry")).toMatchObject({
          ...process,
          track_id: "track:atrace-track|100|net",
          thread_name: "net",
          phase: "I",
          ts_ns: "3200",
          dur_ns: null,
        });
        // Ends close their slices (no rows of their own); the printk line and sched_switch are not
        // marks.
        expect(rows.length).toBe(9);
        expect(evidence.summary).toMatchObject({ atrace_marks: 15, slices: 5 });
        expect(evidence.limitations.find((l) => l.code === "async_begin_while_open")?.count).toBe(
          1,
        );
        expect(
          evidence.limitations.map((l) => l.code).filter((c) => c.startsWith("unmatched")),
        ).toEqual([]);
        // Wall time: outer 4000 inclusive, 3500 self (inner takes 500).
        const frames = bufferRows(evidence.tables.frames);
        const outer = frames.find((f) => f.function === "outer")!;
        const wall = bufferRows(evidence.tables.frame_measurements).find(
          (m) => m.frame_id === outer.frame_id,
        )!;
        expect([Number(wall.inclusive_value), Number(wall.self_value)]).toEqual([4000, 3500]);
        await expectSameOutcome(perfetto, bytes, { displayName: "system.pftrace", chunkSize: 7 });
      }
    },
  );

  test(
    "mark times are read on the bundle's ftrace clock, as Trace Processor reads " + "them",
    async () => {
      const bundle = (
        sequence: number,
        clock: number | undefined,
        pair: [number, number] | null,
        ...events: Msg[]
      ): Msg => ({
        trusted_packet_sequence_id: sequence,
        ftrace_events: {
          cpu: 0,
          event: events,
          ...(clock === undefined ? {} : { ftrace_clock: clock }),
          ...(pair ? { ftrace_timestamp: pair[0], boot_timestamp: pair[1] } : {}),
        },
      });
      const bytes = encode([
        packets[0]!,
        // Boot time is the trace clock; MONOTONIC_RAW (5) runs 1,000,000 ns behind it.
        {
          timestamp: 5_000_000,
          clock_snapshot: {
            primary_trace_clock: 6,
            clocks: [
              { clock_id: 6, timestamp: 5_000_000 },
              { clock_id: 5, timestamp: 4_000_000 },
            ],
          },
        },
        // global (2) on sequence 9: each bundle's pair is read after its events. The first
        // bundle's marks precede every pair, so they use the earliest (its own).
        bundle(9, 2, [1_000, 2_001_000], print(500, 100, "I|100|g1\n")),
        // A later bundle: its marks after the first pair use the first pair, even though the
        // bundle's own pair is newer.
        bundle(9, 2, [3_000, 2_002_500], print(2_000, 100, "I|100|g2\n")),
        // Another sequence's pairs do not apply: sequence 8's global clock has none, so its mark is
        // dropped.
        bundle(8, 2, null, print(2_500, 100, "I|100|lost\n")),
        // The pair may come after the events in the bytes (protobufjs writes fields in number
        // order, so here it does).
        bundle(
          9,
          2,
          [9_000, 2_009_500],
          print(5_000, 100, "I|100|g3\n"),
          print(9_100, 100, "I|100|g4\n"),
        ),
        // local (3) is read the same way as global; mono_raw (4) goes through the clock snapshot;
        // unknown (1) is dropped.
        bundle(7, 3, [100, 7_000_000], print(150, 100, "I|100|l1\n")),
        bundle(9, 4, null, print(4_200_000, 100, "I|100|raw\n")),
        bundle(9, 1, null, print(4_300_000, 100, "I|100|unknown\n")),
        bundle(9, undefined, null, print(4_400_000, 100, "I|100|boot\n")),
      ]);
      const evidence = await extract(bytes);
      const times = Object.fromEntries(
        traceEventBufferRows(evidence).map((r) => [r.name, Number(r.ts_ns)]),
      );
      expect(times).toEqual({
        g1: 500 - 1_000 + 2_001_000,
        g2: 2_000 - 1_000 + 2_001_000,
        g3: 5_000 - 3_000 + 2_002_500,
        g4: 9_100 - 9_000 + 2_009_500,
        l1: 150 - 100 + 7_000_000,
        raw: 4_200_000 + 1_000_000,
        boot: 4_400_000,
      });
      expect(evidence.limitations.find((l) => l.code === "ftrace_clock_unconvertible")?.count).toBe(
        2,
      );
      await expectSameOutcome(perfetto, bytes, { displayName: "clocks.pftrace", chunkSize: 5 });
    },
  );

  test(
    "process_stats become per-process memory counters in bytes, named as Trace Processor names " +
      "them",
    async () => {
      const stats = (timestamp: number, rss: number, extra: Msg = {}): Msg => ({
        timestamp,
        process_stats: { processes: [{ pid: 100, vm_rss_kb: rss, ...extra }] },
      });
      const bytes = encode([
        packets[0]!,
        stats(1000, 1000, { vm_size_kb: 5000, rss_anon_kb: 600, oom_score_adj: -900 }),
        stats(2000, 3000),
        { timestamp: 2500, process_stats: { processes: [{ pid: 200, vm_hwm_kb: 7 }] } },
      ]);
      const rows = traceEventBufferRows(await extract(bytes)).filter((r) => r.phase === "C");
      const got = rows.map((r) => [
        r.name,
        r.ts_ns,
        JSON.parse(r.args_json as string).value,
        r.pid,
        r.process_name,
      ]);
      const app = "/system/bin/app";
      expect(got).toEqual(
        expect.arrayContaining([
          ["mem.rss", "1000", 1000 * 1024, "100", app],
          ["mem.rss", "2000", 3000 * 1024, "100", app],
          ["mem.virt", "1000", 5000 * 1024, "100", app],
          ["mem.rss.anon", "1000", 600 * 1024, "100", app],
          ["oom_score_adj", "1000", -900, "100", app],
          ["mem.rss.watermark", "2500", 7 * 1024, "200", null],
        ]),
      );
      expect(got.length).toBe(6);
      // One track per process and counter.
      expect(new Set(rows.map((r) => r.track_id)).size).toBe(5);
    },
  );
});
