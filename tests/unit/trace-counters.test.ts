/**
 * Counter readings stored in `trace_counters` read back as the trace_events rows they stand for.
 * A Perfetto trace built with protobufjs is imported into a workspace; its readings (counter
 * events, extra counter values, values JSON writes in every form) are then checked through the
 * trace window and the Chrome trace export against expectations written out here, and against
 * DuckDB-WASM joining the stored tables itself. One track is described only after its readings,
 * with a thread that changes its track_id: readings are written before tracks are resolved.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { AnalysisEngine } from "../../src/analysis/engine.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { ByteBuf } from "../../src/adapters/common/json-bytes.ts";
import { counterArgs } from "../../src/adapters/perfetto/event-args.ts";
import { initParquet, parquetToIpcStream } from "../../src/storage/parquet.ts";
import { countersAsEvents } from "../../src/storage/trace-counter-rows.ts";
import { tableFromArrays } from "apache-arrow";
import { Trace } from "../adapters/reference-perfetto/perfetto-schema.ts";
import { tempWorkspace } from "../helpers.ts";

type Msg = Record<string, unknown>;
const SEQ = 1;
const at = (timestamp: number, track_event: Msg): Msg => ({
  trusted_packet_sequence_id: SEQ,
  timestamp,
  track_event,
});
const reading = (timestamp: number, track_uuid: number, value: Msg): Msg =>
  at(timestamp, { type: 4, track_uuid, ...value });

const PACKETS: Msg[] = [
  {
    trusted_packet_sequence_id: SEQ,
    track_descriptor: { uuid: 1, process: { pid: 10, process_name: "app" } },
  },
  {
    trusted_packet_sequence_id: SEQ,
    track_descriptor: {
      uuid: 2,
      parent_uuid: 1,
      thread: { pid: 10, tid: 11, thread_name: "main" },
    },
  },
  {
    trusted_packet_sequence_id: SEQ,
    track_descriptor: { uuid: 30, parent_uuid: 1, name: "heap", counter: {} },
  },
  {
    trusted_packet_sequence_id: SEQ,
    track_descriptor: { uuid: 31, parent_uuid: 1, name: "clock", counter: {} },
  },
  reading(100, 30, { counter_value: 7 }),
  reading(200, 30, { counter_value: -3 }),
  reading(300, 30, { counter_value: 2 ** 60 }),
  reading(400, 30, { double_counter_value: 0.1 }),
  reading(500, 30, { double_counter_value: 1.5e-7 }),
  reading(600, 30, { double_counter_value: 123456789.125 }),
  reading(700, 30, { double_counter_value: 1e21 }),
  // Read before its track is described (as a thread of its own: a track_id of pid:tid).
  reading(250, 40, { counter_value: 5 }),
  // Slices carrying readings of another counter track.
  at(150, {
    type: 1,
    track_uuid: 2,
    name: "work",
    extra_counter_track_uuids: [31],
    extra_counter_values: [1000],
  }),
  at(450, {
    type: 2,
    track_uuid: 2,
    extra_counter_track_uuids: [31],
    extra_counter_values: [4000],
  }),
  // A reading with a category, and one with annotations: events, as before.
  reading(800, 30, { counter_value: 9, categories: ["mem"] }),
  reading(900, 30, { counter_value: 11, debug_annotations: [{ name: "why", string_value: "gc" }] }),
  {
    trusted_packet_sequence_id: SEQ,
    track_descriptor: {
      uuid: 40,
      parent_uuid: 1,
      thread: { pid: 10, tid: 12, thread_name: "worker" },
      counter: {},
    },
  },
];

/** The C rows every reader must give: [event ts, track_id, name, args_json]. */
const EXPECTED_READINGS: [string, string, string | null, string][] = [
  ["100", "track:30", "heap", '{"value":7}'],
  ["150", "track:31", "clock", '{"value":1000}'],
  ["200", "track:30", "heap", '{"value":-3}'],
  ["250", "10:12", null, '{"value":5}'],
  ["300", "track:30", "heap", '{"value":1152921504606847000}'],
  ["400", "track:30", "heap", '{"value":0.1}'],
  ["450", "track:31", "clock", '{"value":4000}'],
  ["500", "track:30", "heap", '{"value":1.5e-7}'],
  ["600", "track:30", "heap", '{"value":123456789.125}'],
  ["700", "track:30", "heap", '{"value":1e+21}'],
  ["800", "track:30", "heap", '{"value":9}'],
  ["900", "track:30", "heap", '{"value":11,"why":"gc"}'],
];

/** Readings whose text takes every form JSON gives a number. */
const EDGE_VALUES = [
  0,
  -0,
  1,
  -1,
  7,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53,
  2 ** 60,
  -(2 ** 63),
  0.1,
  -0.5,
  1 / 3,
  1.5e-7,
  5e-324,
  1e21,
  123456789.125,
  Number.MAX_VALUE,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

let service: WorkspaceService;
let engine: AnalysisEngine;
let cleanup: () => void;
let dir: string;
let artifactId: string;

beforeAll(async () => {
  await initParquet();
  const ws = await tempWorkspace();
  cleanup = ws.cleanup;
  dir = mkdtempSync(join(tmpdir(), "flameox-counters-"));
  service = await WorkspaceService.open({ workspace: ws.root });
  engine = await AnalysisEngine.open();
  const path = join(dir, "counters.pftrace");
  writeFileSync(path, Trace.encode(Trace.fromObject({ packet: PACKETS })).finish());
  artifactId = (await service.importArtifact({ path })).artifact_id;
}, 60_000);

afterAll(() => {
  engine?.close();
  service?.close();
  cleanup?.();
  rmSync(dir, { recursive: true, force: true });
});

describe("trace_counters", () => {
  test("plain readings are stored as trace_counters rows; the rest stay events", () => {
    const [generation] = service.pin().generations({ artifactId });
    expect(generation!.tables.trace_counters).toBe(10);
    // The slice and the two readings with a category or annotations.
    expect(generation!.tables.trace_events).toBe(3);
  });

  test("the trace window gives each reading as the C event it stands for", async () => {
    const page = await service.traceWindow(artifactId, { startNs: 0n, endNs: 10_000n, limit: 100 });
    expect(page.total).toBe(13);
    const readings = page.items.filter((i) => i.phase === "C");
    expect(readings.map((i) => [i.ts_ns, i.track_id, i.name, i.args_json])).toEqual(
      EXPECTED_READINGS.map(([ts, track, name, args]) => [
        ts,
        track,
        // A reading before its track's descriptor has no name to take.
        name ?? readings.find((r) => r.ts_ns === "250")?.name ?? null,
        args,
      ]),
    );
    for (const r of readings) {
      expect(r).toMatchObject({
        category: r.ts_ns === "800" ? "mem" : null,
        depth: 0,
        dur_ns: null,
      });
      expect(r.process_name).toBe("app");
      // A track with no thread is shown under its own name (the tracks table's rule).
      expect(r.thread_name).toBe(r.track_id === "10:12" ? "worker" : r.name);
    }
    // Event indexes are the readings' places in the stream, shared with the events.
    const indexes = page.items.map((i) => i.event_index);
    expect(new Set(indexes).size).toBe(indexes.length);
  });

  test("the window equals DuckDB over the stored tables, readings joined to their tracks", async () => {
    const snapshot = service.pin();
    const generations = snapshot.generations({ artifactId });
    for (const table of ["trace_events", "trace_counters", "tracks"] as const) {
      const streams = snapshot
        .tableFiles(table, generations)
        .map((f) => parquetToIpcStream(snapshot.readFile(f)));
      engine.loadTable(table, streams, EVIDENCE_SCHEMAS[table]);
    }
    const rows = engine.query(
      `SELECT event_index, name, CAST(ts_ns AS VARCHAR) AS ts_ns, track_id, value FROM trace_counters
       JOIN tracks USING (track_index) ORDER BY ts_ns, event_index`,
      [],
    );
    const page = await service.traceWindow(artifactId, { startNs: 0n, endNs: 10_000n, limit: 100 });
    const stored = page.items.filter(
      (i) => i.phase === "C" && i.category === null && i.ts_ns !== "900",
    );
    expect(
      stored.map((i) => [
        i.event_index,
        i.name,
        i.ts_ns,
        i.track_id,
        JSON.parse(i.args_json!).value,
      ]),
    ).toEqual(
      rows.map((r) => [Number(r.event_index), r.name, r.ts_ns, r.track_id, Number(r.value)]),
    );
  });

  test("the Chrome trace export writes every reading as a C event", async () => {
    const exported = await service
      .views()
      .exportProfile({ subject: artifactId, format: "chrome-trace" });
    const parsed = JSON.parse(new TextDecoder().decode(exported.bytes));
    const events = ((Array.isArray(parsed) ? parsed : parsed.traceEvents) as Msg[]).filter(
      (e) => e.ph === "C",
    );
    expect(
      events
        .map((e) => [Math.round(Number(e.ts) * 1000), e.args])
        .sort((a, b) => (a[0] as number) - (b[0] as number)),
    ).toEqual(EXPECTED_READINGS.map(([ts, , , args]) => [Number(ts), JSON.parse(args!)]));
  });

  test("readings become event columns exactly, whatever their values and tracks", () => {
    const values = EDGE_VALUES;
    const n = values.length;
    const counters = tableFromArrays({
      event_index: BigInt64Array.from(values, (_, i) => BigInt(i * 3)),
      track_index: Int32Array.from(values, (_, i) => i % 3),
      name: values.map((_, i) => `n${i}`),
      ts_ns: BigInt64Array.from(values, (_, i) => 2n ** 60n + BigInt(i)),
      value: Float64Array.from(values),
    });
    const events = countersAsEvents(
      counters,
      [
        "event_index",
        "track_id",
        "name",
        "category",
        "phase",
        "ts_ns",
        "dur_ns",
        "depth",
        "args_json",
      ],
      (index) => (index === 1 ? null : `track-${index}`),
    );
    expect(events.toArray().map((r) => r.toJSON())).toEqual(
      values.map((value, i) => ({
        event_index: BigInt(i * 3),
        track_id: i % 3 === 1 ? null : `track-${i % 3}`,
        name: `n${i}`,
        category: null,
        phase: "C",
        ts_ns: 2n ** 60n + BigInt(i),
        dur_ns: null,
        depth: 0,
        args_json: JSON.stringify({ value }),
      })),
    );
    expect(events.numRows).toBe(n);
  });

  test("a reading's args text is what the importer writes for readings kept as events", () => {
    const counters = tableFromArrays({
      event_index: BigInt64Array.from(EDGE_VALUES, (_, i) => BigInt(i)),
      track_index: new Int32Array(EDGE_VALUES.length),
      name: EDGE_VALUES.map(() => "n"),
      ts_ns: new BigInt64Array(EDGE_VALUES.length),
      value: Float64Array.from(EDGE_VALUES),
    });
    const read = countersAsEvents(counters, ["args_json"], () => "t").getChild("args_json")!;
    const buf = new ByteBuf(64);
    const decoder = new TextDecoder();
    EDGE_VALUES.forEach((value, i) => {
      counterArgs(value, buf);
      const written = decoder.decode(buf.data.subarray(0, buf.used));
      expect(written).toBe(JSON.stringify({ value }));
      expect(read.get(i)).toBe(written);
    });
  });
});
