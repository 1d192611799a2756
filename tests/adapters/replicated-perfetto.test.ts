/**
 * The benchmark's real-trace grower (fixtures/generators/replicated-perfetto.ts): every copy of a
 * trace must import as the trace itself, shifted in time by a whole number of shifts. Checked on
 * a trace written the way Chrome writes its traces (deltas on a sequence-scoped incremental
 * clock anchored by a snapshot, sequence defaults, absolute microseconds, an explicit built-in
 * clock) and on the vendored nested-tracks trace.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
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
