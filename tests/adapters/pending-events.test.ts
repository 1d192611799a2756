/**
 * A track's held events (trace-events/pending-events.ts) let arrays grown past what they keep go
 * between tracks, so one track that held many does not keep them through the rest of the merge,
 * and keep smaller ones, so each track does not grow them again.
 */
import { describe, expect, spyOn, test } from "bun:test";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import {
  KEPT_ARGS_BYTES,
  KEPT_CAPACITY,
  PendingEvents,
} from "../../src/adapters/trace-events/pending-events.ts";
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
  test("release lets arrays grown past what it keeps go once nothing is held, and keeps smaller ones", () => {
    const p = new PendingEvents();
    const cursor = cursorOf(new Uint8Array(100).fill(7));
    const held = KEPT_CAPACITY + 5000;
    for (let k = 0; k < held; k++) p.push(cursor);
    expect(p.seq.length).toBeGreaterThan(KEPT_CAPACITY);
    expect(p.argsData.length).toBeGreaterThan(KEPT_ARGS_BYTES);
    expect(() => p.release()).toThrow();
    p.base += p.length;
    p.length = 0;
    p.release();
    expect([p.seq.length, p.argsAt.length, p.flags.length]).toEqual([
      KEPT_CAPACITY,
      KEPT_CAPACITY,
      KEPT_CAPACITY,
    ]);
    expect(p.argsData.length).toBe(KEPT_ARGS_BYTES);
    expect(p.argsHeld).toBe(0);
    // Held again from the start of its arrays, its handles going on from where they were.
    expect(p.push(cursor)).toBe(held);
    expect(p.argsData.subarray(0, 100)).toEqual(new Uint8Array(100).fill(7));
    // Arrays within what release keeps stay as they are: the next track does not grow them again.
    p.base += p.length;
    p.length = 0;
    for (let k = 0; k < 5000; k++) p.push(cursor);
    p.base += p.length;
    p.length = 0;
    const { seq, flags, argsData } = p;
    p.release();
    expect([p.seq === seq, p.flags === flags, p.argsData === argsData]).toEqual([true, true, true]);
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
