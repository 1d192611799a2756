/**
 * A track's held events (trace-events/pending-events.ts) let their grown arrays go between
 * tracks, so one track that held many does not keep them through the rest of the merge.
 */
import { describe, expect, spyOn, test } from "bun:test";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import { PendingEvents } from "../../src/adapters/trace-events/pending-events.ts";
import type { EventCursor, EventViews } from "../../src/adapters/trace-events/run-codec.ts";
import { runStream, streamedTableRows } from "./stream-harness.ts";

/** A cursor over one event whose args are `args`. */
function cursorOf(args: Uint8Array): EventCursor {
  const f64 = () => new Float64Array(1);
  const i32 = () => new Int32Array(1);
  const v = {
    seq: f64(),
    start: f64(),
    dur: f64(),
    threadNs: f64(),
    track: i32(),
    frame: i32(),
    name: i32(),
    cat: i32(),
    ph: i32(),
    argsLen: Int32Array.of(args.length),
    kind: new Uint8Array(1),
    flags: new Uint8Array(1),
    args,
  } as unknown as EventViews;
  return { v, i: 0, argsAt: 0, next: () => false, args: () => args };
}

describe("pending events", () => {
  test("release gives the arrays back their first size once nothing is held", () => {
    const p = new PendingEvents();
    const first = p.seq.length;
    const cursor = cursorOf(new Uint8Array(100).fill(7));
    for (let k = 0; k < 5000; k++) p.push(cursor);
    expect(p.seq.length).toBeGreaterThan(first);
    expect(() => p.release()).toThrow();
    p.base += p.length;
    p.length = 0;
    p.release();
    expect([p.seq.length, p.argsAt.length, p.flags.length]).toEqual([first, first, first]);
    expect(p.argsData.length).toBe(1 << 16);
    expect(p.argsHeld).toBe(0);
    // Held again from the start of its arrays, its handles going on from where they were.
    expect(p.push(cursor)).toBe(5000);
    expect(p.argsData.subarray(0, 100)).toEqual(new Uint8Array(100).fill(7));
  });

  test("a trace's import releases them at each track's end, every row written", async () => {
    // Thread 1 holds every event behind a B open to the end; thread 2 comes after.
    const events = [{ ph: "B", name: "open", ts: 0, pid: 1, tid: 1 }];
    for (let k = 0; k < 3000; k++)
      events.push({ ph: "X", name: `e${k % 3}`, ts: 1 + k, dur: 1, pid: 1, tid: 1 } as never);
    for (let k = 0; k < 10; k++)
      events.push({ ph: "X", name: "t2", ts: k, dur: 1, pid: 1, tid: 2 } as never);
    const bytes = new TextEncoder().encode(JSON.stringify({ traceEvents: events }));
    const released = spyOn(PendingEvents.prototype, "release");
    try {
      const rows = streamedTableRows(await runStream(chromeTraceAdapter, bytes), "trace_events");
      expect(rows).toHaveLength(3011);
      expect(released.mock.calls.length).toBe(2);
    } finally {
      released.mockRestore();
    }
  });
});
