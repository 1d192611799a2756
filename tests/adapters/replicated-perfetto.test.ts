/**
 * The benchmark's real-trace grower (fixtures/generators/replicated-perfetto.ts): every copy of a
 * trace must import as the trace itself, shifted in time by a whole number of shifts. Checked on
 * a trace written the way Chrome writes its traces (deltas on a sequence-scoped incremental
 * clock anchored by a snapshot, sequence defaults, absolute microseconds, an explicit built-in
 * clock) and on the vendored nested-tracks trace. A V8 profile in the trace becomes one profile
 * per copy, not one whose node ids repeat.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { cpuProfile } from "./adapter-harness.ts";
import { v8ProfileEvent, v8ProfileThread } from "./v8-profile-packets.ts";
import { replicatePerfettoTrace } from "../../fixtures/generators/replicated-perfetto.ts";
import { extracted } from "./adapter-harness.ts";
import { corpusFiles } from "./corpus-files.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { traceEventBufferRows } from "./stream-harness.ts";

const perfetto = adapterByName("perfetto")!;
type Msg = Record<string, any>;

/** Two threads' sequences, Chrome's way: µs deltas on clock 64, anchored to BOOTTIME. */
function chromeShaped(): Uint8Array {
  const sequence = (seq: number, uuid: number, tid: number): Msg[] => [
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 1,
      timestamp: 7_000_000_000,
      timestamp_clock_id: 6,
      track_descriptor: { uuid, thread: { pid: 9, tid, thread_name: `t${tid}` } },
      trace_packet_defaults: { timestamp_clock_id: 64, track_event_defaults: { track_uuid: uuid } },
      clock_snapshot: {
        clocks: [
          { clock_id: 6, timestamp: 7_000_000_000 + seq * 1000 },
          { clock_id: 64, timestamp: 0, is_incremental: true, unit_multiplier_ns: 1000 },
        ],
      },
      interned_data: {
        event_names: [
          { iid: 1, name: "outer" },
          { iid: 2, name: "inner" },
        ],
      },
    },
    ...[
      [1, 1, 10],
      [1, 2, 5],
      [2, 2, 20],
      [2, 1, 5],
    ].map(([type, name, delta]) => ({
      trusted_packet_sequence_id: seq,
      sequence_flags: 2,
      timestamp: delta! * seq,
      track_event: { type, name_iid: name },
    })),
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 2,
      // A delta too: the clock moves on, though the event's own time is absolute.
      timestamp: 3,
      track_event: { type: 3, name: "absolute", timestamp_absolute_us: 7_000_100 },
    },
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 2,
      timestamp: 4,
      track_event: { type: 3, name: "after" },
    },
    {
      trusted_packet_sequence_id: seq,
      sequence_flags: 2,
      timestamp: 7_000_200_000,
      timestamp_clock_id: 6,
      track_event: { type: 3, name: "builtin clock" },
    },
  ];
  return Trace.encode(
    Trace.fromObject({ packet: [...sequence(1, 11, 1), ...sequence(2, 12, 2)] }),
  ).finish();
}

async function startsOf(bytes: Uint8Array): Promise<string[]> {
  const e = await extracted(perfetto, { bytes, displayName: "t", limits: DEFAULT_ADAPTER_LIMITS });
  return traceEventBufferRows(e).map((r) =>
    [r.track_id, r.name, r.phase, r.ts_ns, r.dur_ns].join("\t"),
  );
}

const cases: [string, () => Uint8Array][] = [["Chrome's clocks", chromeShaped]];
const vendored = corpusFiles("perfetto").find(
  (f) => f.lane === "vendored" && f.name.includes("nested_tracks"),
);
if (vendored) cases.push([vendored.name, () => new Uint8Array(readFileSync(vendored.path))]);

test.each(cases)("copies of %s import as the trace, shifted in time", async (_name, source) => {
  const dir = mkdtempSync(join(tmpdir(), "flameox-replicated-"));
  try {
    const bytes = source();
    const input = join(dir, "source.pftrace");
    writeFileSync(input, bytes);
    const output = join(dir, "copies.pftrace");
    const r = await replicatePerfettoTrace(input, output, bytes.length * 3);
    expect(r.copies).toBeGreaterThanOrEqual(3);
    const once = await startsOf(bytes);
    expect(once.length).toBeGreaterThan(4);
    const expected = once.flatMap((row) => {
      const [track, name, phase, ts, dur] = row.split("\t");
      return Array.from({ length: r.copies }, (_, k) =>
        [track, name, phase, BigInt(ts!) + BigInt(k * r.shiftNs), dur].join("\t"),
      );
    });
    const copies = await startsOf(new Uint8Array(readFileSync(output)));
    expect(copies.sort()).toEqual(expected.sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const legacyJson = (data: Record<string, unknown>) => ({ legacy_json_value: JSON.stringify(data) });

/** Chrome's V8 profile events: a Profile and one ProfileChunk joined by legacy id 7. */
function chromeProfile(): { bytes: Uint8Array; samples: number } {
  const profile = cpuProfile(
    [
      [2, "main", 1],
      [3, "hot", 2],
    ],
    [3, 2, 3, 3],
    [5, 10, 20, 30],
  );
  const nodes = profile.nodes.map(({ children: _children, ...node }) => ({
    ...node,
    parent: node.id === 1 ? undefined : node.id - 1,
  }));
  const bytes = Trace.encode(
    Trace.fromObject({
      packet: [
        ...v8ProfileThread(1, 101, 1, "CrRendererMain", 6),
        ...v8ProfileThread(2, 102, 99, "v8:ProfEvntProc", 6),
        v8ProfileEvent(1, 1000, legacyJson({ startTime: profile.startTime })),
        v8ProfileEvent(
          2,
          1100,
          legacyJson({
            cpuProfile: { nodes, samples: profile.samples },
            timeDeltas: profile.timeDeltas,
            endTime: profile.endTime,
          }),
        ),
      ],
    }),
  ).finish();
  return { bytes, samples: profile.samples.length };
}

test("each copy's V8 profile is a profile of its own", async () => {
  const dir = mkdtempSync(join(tmpdir(), "flameox-replicated-"));
  try {
    const { bytes, samples } = chromeProfile();
    const input = join(dir, "source.pftrace");
    writeFileSync(input, bytes);
    const output = join(dir, "copies.pftrace");
    const r = await replicatePerfettoTrace(input, output, bytes.length * 3);
    expect(r.copies).toBeGreaterThanOrEqual(3);
    const summary = async (b: Uint8Array) => {
      const e = await extracted(perfetto, {
        bytes: b,
        displayName: "t",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      return {
        profiles: e.summary.cpu_profiles,
        samples: e.summary.cpu_samples,
        skipped: e.limitations.some((l) => l.code === "cpu_profile_skipped"),
      };
    };
    expect(await summary(bytes)).toEqual({ profiles: 1, samples, skipped: false });
    expect(await summary(new Uint8Array(readFileSync(output)))).toEqual({
      profiles: r.copies,
      samples: samples * r.copies,
      skipped: false,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
