/** Project-made traces: B/E pairing, timestamps, tracks, args, nesting. */
import { describe, expect, test } from "bun:test";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { chromeTraceAdapter, extractWith, limitation } from "./adapter-harness.ts";
import { expectTableInvariants, rowsOf, traceEventRows, type Row } from "./evidence-checks.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

const x = (name: string, ts: number, dur: number, extra: Record<string, unknown> = {}) => ({
  ph: "X",
  name,
  ts,
  dur,
  pid: 1,
  tid: 1,
  ...extra,
});
const ev = (
  ph: string,
  name: string | undefined,
  ts: number,
  extra: Record<string, unknown> = {},
) => ({ ph, name, ts, pid: 1, tid: 1, ...extra });

function wallByName(evidence: NormalizedEvidence): Map<string, Row> {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f.function as string]),
  );
  const out = new Map<string, Row>();
  for (const m of rowsOf(evidence.tables.frame_measurements))
    if (m.metric === "wall_time") out.set(`${names.get(m.frame_id)}|${m.track_id}`, m);
  return out;
}

const eventsByName = (evidence: NormalizedEvidence) =>
  new Map(traceEventRows(evidence).map((r) => [r.name as string, r]));

describe("B/E pairing", () => {
  test("unmatched B is closed at the thread's last timestamp; unmatched E is dropped", async () => {
    const evidence = await extractWith(chromeTraceAdapter, [
      ev("B", "open", 10),
      ev("B", "inner", 20),
      ev("E", "inner", 30),
      ev("E", "stray", 35),
      ev("i", "last", 50),
    ]);
    expectTableInvariants(evidence);
    expect(limitation(evidence, "unmatched_begin")).toBe(1);
    expect(limitation(evidence, "unmatched_end")).toBe(1);
    const rows = eventsByName(evidence);
    expect(rows.get("open")).toMatchObject({
      phase: "B",
      dur_ns: 40_000,
      depth: 0,
      flags: "unmatched_begin",
    });
    expect(rows.get("inner")).toMatchObject({ phase: "B", dur_ns: 10_000, depth: 1, flags: null });
    expect(rows.get("last")).toMatchObject({ phase: "i", dur_ns: null });
    expect(rows.has("stray")).toBe(false);
    expect(evidence.tables.trace_events.rowCount).toBe(3);
  });

  test("an E closes the innermost B of its name, closing the Bs it skips", async () => {
    const evidence = await extractWith(chromeTraceAdapter, [
      ev("B", "outer", 0),
      ev("B", "skipped", 5),
      ev("E", "outer", 20),
    ]);
    const rows = eventsByName(evidence);
    expect(rows.get("outer")).toMatchObject({ dur_ns: 20_000, flags: null });
    expect(rows.get("skipped")).toMatchObject({
      dur_ns: 15_000,
      flags: "unmatched_begin",
      depth: 1,
    });
  });

  test(
    "nameless Es close by position; events " + "are paired in time order, not file order",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        ev("E", undefined, 9),
        ev("B", "late", 2),
        ev("B", "early", 1),
        ev("E", undefined, 10),
      ]);
      const rows = eventsByName(evidence);
      expect(rows.get("late")).toMatchObject({ dur_ns: 7_000, depth: 1 });
      expect(rows.get("early")).toMatchObject({ dur_ns: 9_000, depth: 0 });
      expect(limitation(evidence, "unmatched_end")).toBeUndefined();
    },
  );
});

describe("timestamps", () => {
  test("fractional µs beyond 2^53 ns are exact int64 nanoseconds", async () => {
    const ts = 12_345_678_901_234.5; // µs; 1.2e16 ns > 2^53
    const evidence = await extractWith(chromeTraceAdapter, [
      x("big", ts, 0.25),
      x("later", ts + 0.25, 1.75),
    ]);
    const rows = eventsByName(evidence);
    expect(rows.get("big")).toMatchObject({ ts_ns: 12_345_678_901_234_500n, dur_ns: 250 });
    expect(rows.get("later")).toMatchObject({
      ts_ns: 12_345_678_901_234_750n,
      dur_ns: 1_750,
      depth: 0,
    });
    expect(
      rowsOf(evidence.tables.stacks)
        .map((s) => s.first_ts_ns)
        .sort(),
    ).toEqual([12_345_678_901_234_500n, 12_345_678_901_234_750n]);
  });

  test(
    "ns-resolution fractions round to the " + "nearest ns; displayTimeUnit changes nothing",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, {
        displayTimeUnit: "ns",
        traceEvents: [x("op", 1000.0004, 2.0006)],
      });
      expect(eventsByName(evidence).get("op")).toMatchObject({ ts_ns: 1_000_000n, dur_ns: 2_001 });
    },
  );

  test(
    "numeric strings are read as numbers; " + "events without ts are dropped and counted",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        x("s", 0, 1, { ts: "5", dur: "2" }),
        { ph: "X", name: "nots", dur: 1, pid: 1, tid: 1 },
      ]);
      expect(eventsByName(evidence).get("s")).toMatchObject({ ts_ns: 5_000n, dur_ns: 2_000 });
      expect(limitation(evidence, "missing_ts")).toBe(1);
    },
  );

  test(
    "negative or non-numeric dur is clamped to 0 and flagged; missing dur runs to the thread's " +
      "end",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        x("neg", 0, -5),
        x("nan", 1, 0, { dur: "abc" }),
        { ph: "X", name: "open", ts: 2, pid: 1, tid: 1 },
        x("end", 3, 7),
      ]);
      const rows = eventsByName(evidence);
      expect(rows.get("neg")).toMatchObject({ dur_ns: 0, flags: "clamped" });
      expect(rows.get("nan")).toMatchObject({ dur_ns: 0, flags: "clamped" });
      expect(rows.get("open")).toMatchObject({ dur_ns: 8_000, flags: "missing_dur" });
      expect(rows.get("end")).toMatchObject({ depth: 1 });
      expect(limitation(evidence, "clamped_events")).toBe(2);
      expect(limitation(evidence, "missing_dur")).toBe(1);
    },
  );
});

describe("tracks and names", () => {
  test(
    'string and numeric pids/tids; 1 and "1" are the same thread; names come from ' + "metadata",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        x("kernel", 0, 5, { pid: "gpu 0", tid: "stream 7", cat: "kernel" }),
        x("op", 0, 5, { pid: 1, tid: "1", cat: "cpu_op" }),
        x("op", 10, 5, { pid: "1", tid: 1, cat: "cpu_op" }),
        { ph: "M", name: "process_name", pid: 1, tid: 0, args: { name: "python" } },
        { ph: "M", name: "thread_name", pid: "1", tid: 1, args: { name: "main" } },
        { ph: "M", name: "thread_sort_index", pid: 1, tid: 1, args: { sort_index: 3 } },
      ]);
      expectTableInvariants(evidence);
      const rows = traceEventRows(evidence);
      expect(rows.map((r) => r.track_id)).toEqual(["gpu 0:stream 7", "1:1", "1:1"]);
      expect(rows[0]).toMatchObject({
        pid: "gpu 0",
        tid: "stream 7",
        process_name: null,
        thread_name: null,
        category: "kernel",
      });
      expect(rows[1]).toMatchObject({
        pid: "1",
        tid: "1",
        process_name: "python",
        thread_name: "main",
      });
      const wall = wallByName(evidence);
      expect(wall.get("op|1:1")).toMatchObject({
        self_value: 10_000,
        self_samples: 2,
        process_name: "python",
        thread_name: "main",
      });
      expect(wall.get("kernel|gpu 0:stream 7")).toMatchObject({ self_value: 5_000 });
      const frame = rowsOf(evidence.tables.frames).find((f) => f.function === "kernel")!;
      expect(frame).toMatchObject({
        language: "trace",
        module: "kernel",
        symbolization: "complete",
      });
    },
  );

  test(
    "the same name on two threads gives one " + "frame and one measurement row per thread",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        x("work", 0, 3, { tid: 1 }),
        x("work", 0, 4, { tid: 2 }),
      ]);
      expect(evidence.tables.frames.rowCount).toBe(1);
      const rows = rowsOf(evidence.tables.frame_measurements);
      expect(rows.map((r) => [r.track_id, r.self_value])).toEqual([
        ["1:1", 3_000],
        ["1:2", 4_000],
      ]);
    },
  );
});

describe("nesting and measurements", async () => {
  // main [0,100] > parse [10,40] > parse [15,25] (recursion), main > run [50,90]
  const evidence = await extractWith(chromeTraceAdapter, [
    x("parse", 15, 10),
    x("run", 50, 40),
    x("parse", 10, 30),
    x("main", 0, 100),
  ]);
  const wall = wallByName(evidence);

  test("depth follows nesting even when children come first in the file", () => {
    expectTableInvariants(evidence);
    // In file order (event_index): the stream writes each track's rows in time order.
    const inFileOrder = traceEventRows(evidence).toSorted(
      (a, b) => Number(a.event_index) - Number(b.event_index),
    );
    expect(inFileOrder.map((r) => r.depth)).toEqual([2, 1, 1, 0]);
  });

  test("self = duration − children; inclusive counts recursion once", () => {
    expect(wall.get("main|1:1")).toMatchObject({
      self_value: 30_000,
      inclusive_value: 100_000,
      self_samples: 1,
      inclusive_samples: 1,
    });
    expect(wall.get("parse|1:1")).toMatchObject({
      self_value: 30_000,
      inclusive_value: 30_000,
      self_samples: 2,
      inclusive_samples: 2,
    });
    expect(wall.get("run|1:1")).toMatchObject({ self_value: 40_000, inclusive_value: 40_000 });
  });

  test("call edges and leaf stacks", () => {
    const names = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f.function]));
    const edges = rowsOf(evidence.tables.call_edges).map((e) => [
      `${names.get(e.parent_frame_id)}>${names.get(e.child_frame_id)}`,
      e.sample_count,
      e.duration_ns,
      e.metric,
    ]);
    expect(edges.sort()).toEqual([
      ["main>parse", 1, 30_000, "wall_time"],
      ["main>run", 1, 40_000, "wall_time"],
      ["parse>parse", 1, 10_000, "wall_time"],
    ]);
    const stacks = rowsOf(evidence.tables.stacks).map((s) => [
      (s.frame_ids as string[]).map((id) => names.get(id)).join(";"),
      s.sample_count,
      s.duration_ns,
      s.track_id,
    ]);
    expect(stacks.sort()).toEqual([
      ["main;parse;parse", 1, 10_000, "1:1"],
      ["main;run", 1, 40_000, "1:1"],
    ]);
  });

  test("a child that outlasts its parent is not counted twice", async () => {
    // a [0,20] > b [5,15] > c [12,25]: c's stretch past b is c's, not a's.
    const improper = wallByName(
      await extractWith(chromeTraceAdapter, [x("a", 0, 20), x("b", 5, 10), x("c", 12, 13)]),
    );
    expect([
      improper.get("a|1:1")!.self_value,
      improper.get("b|1:1")!.self_value,
      improper.get("c|1:1")!.self_value,
    ]).toEqual([5_000, 7_000, 13_000]);
  });

  test("a trace without slices says so", async () => {
    const only = await extractWith(chromeTraceAdapter, [
      ev("i", "tick", 1),
      ev("C", "heap", 2, { args: { bytes: 10 } }),
    ]);
    expect(limitation(only, "no_slices")).toBe(1);
    expect(only.tables.frame_measurements.rowCount).toBe(0);
    expect(traceEventRows(only).map((r) => [r.phase, r.dur_ns, r.args_json])).toEqual([
      ["i", null, null],
      ["C", null, '{"bytes":10}'],
    ]);
  });
});

describe("other phases and args", () => {
  test(
    "flow, unpaired async and unknown phases are kept as events; unknown ones are " + "counted",
    async () => {
      const evidence = await extractWith(chromeTraceAdapter, [
        ev("b", "no id", 1, { cat: "net" }),
        ev("s", "flow", 2, { id: 5 }),
        ev("f", "flow", 3, { id: 5 }),
        ev("Q", "weird", 4),
      ]);
      expect(traceEventRows(evidence).map((r) => [r.phase, r.track_id, r.dur_ns])).toEqual([
        ["b", "1:1", null],
        ["s", "1:1", null],
        ["f", "1:1", null],
        ["Q", "1:1", null],
      ]);
      expect(limitation(evidence, "unknown_phases")).toBe(1);
    },
  );

  test(
    "nestable async b/e pair into slices on their operation's track, keyed by category " + "and id",
    async () => {
      const events = [
        x("thread work", 0, 100),
        // One operation (net, 0x1): two nested slices and an instant, across two threads of process
        // 1.
        ev("b", "request", 10, { id: "0x1", cat: "net" }),
        ev("b", "dns", 12, { id: "0x1", cat: "net", tid: 2 }),
        ev("n", "retry", 13, { id: "0x1", cat: "net" }),
        ev("e", "dns", 15, { id: "0x1", cat: "net", tid: 2 }),
        ev("e", "request", 40, { id: "0x1", cat: "net" }),
        // The same id in another category is another operation; an id2.local one is scoped to its
        // process.
        ev("b", "paint", 20, { id: "0x1", cat: "gfx" }),
        ev("e", "paint", 25, { id: "0x1", cat: "gfx" }),
        ev("b", "measure", 30, { id2: { local: "0x7" }, cat: "blink.user_timing", pid: 2 }),
        ev("e", "measure", 33, { id2: { local: "0x7" }, cat: "blink.user_timing", pid: 2 }),
        // An async e that matches nothing is dropped like an unmatched E.
        ev("e", "never", 50, { id: 9, cat: "net" }),
        { ph: "M", name: "process_name", pid: 2, args: { name: "renderer" } },
      ];
      const evidence = await extractWith(chromeTraceAdapter, events);
      expectTableInvariants(evidence);
      const rows = eventsByName(evidence);
      expect(rows.get("request")).toMatchObject({
        phase: "b",
        track_id: "async:net:0x1",
        pid: null,
        tid: null,
        thread_name: "request",
        dur_ns: 30_000,
        depth: 0,
      });
      expect(rows.get("dns")).toMatchObject({
        phase: "b",
        track_id: "async:net:0x1",
        dur_ns: 3_000,
        depth: 1,
      });
      expect(rows.get("retry")).toMatchObject({
        phase: "n",
        track_id: "async:net:0x1",
        dur_ns: null,
      });
      expect(rows.get("paint")).toMatchObject({
        track_id: "async:gfx:0x1",
        dur_ns: 5_000,
        depth: 0,
      });
      expect(rows.get("measure")).toMatchObject({
        track_id: "2:async:blink.user_timing:0x7",
        pid: "2",
        process_name: "renderer",
        dur_ns: 3_000,
      });
      expect(rows.get("thread work")).toMatchObject({ track_id: "1:1", dur_ns: 100_000, depth: 0 });
      expect(rows.has("never")).toBe(false);
      expect(limitation(evidence, "unmatched_end")).toBe(1);
      // Async slices have wall time on their own track: request 30 µs inclusive, 27 µs self (dns
      // takes 3).
      const request = wallByName(evidence).get("request|async:net:0x1")!;
      expect([Number(request.inclusive_value), Number(request.self_value)]).toEqual([
        30_000, 27_000,
      ]);
      await expectSameOutcome(
        chromeTraceAdapter,
        new TextEncoder().encode(JSON.stringify(events)),
        {
          chunkSize: 11,
        },
      );
    },
  );

  test("args longer than maxArgsBytes are cut on a character boundary and flagged", async () => {
    const evidence = await extractWith(
      chromeTraceAdapter,
      [x("big", 0, 1, { args: { text: "é".repeat(100) } }), x("small", 2, 1, { args: { n: 1 } })],
      { maxArgsBytes: 51 },
    );
    const rows = eventsByName(evidence);
    const cut = rows.get("big")!;
    expect(cut.flags).toBe("args_truncated");
    expect(new TextEncoder().encode(cut.args_json as string).length).toBeLessThanOrEqual(51);
    expect(cut.args_json as string).toStartWith('{"text":"éé');
    expect(rows.get("small")).toMatchObject({ args_json: '{"n":1}', flags: null });
    expect(limitation(evidence, "args_truncated")).toBe(1);
  });

  test("a bare array without its closing bracket is repaired and reported", async () => {
    const text = '[{"ph":"X","name":"a","ts":0,"dur":1,"pid":1,"tid":1},\n';
    const evidence = await extractWith(chromeTraceAdapter, text);
    expect(limitation(evidence, "truncated_array_repaired")).toBe(1);
    expect(evidence.tables.trace_events.rowCount).toBe(1);
  });
});
