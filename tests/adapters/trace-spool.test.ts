/**
 * The event spool (src/adapters/trace-events): streaming Chrome-trace extraction, with
 * events spilled in sorted runs and merged back per track, must give exactly the rows of
 * the whole-payload reference — on seeded random traces built to hit the hard cases
 * (threads interleaved and out of order, equal starts with different durations, B/E pairs
 * by name, unnamed, unmatched on either side, X without dur, instants, args) and at run
 * sizes from one event to everything in one run. Spill files live in the given space and
 * are deleted after success and after failure.
 */
import { describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_ADAPTER_LIMITS,
  type HandedOverRun,
  type RunOffload,
  type SpillFile,
  type StreamedEvidence,
} from "../../src/adapters/adapter.ts";
import { RunWriter } from "../../src/adapters/trace-events/run-codec.ts";
import { runOrder } from "../../src/adapters/trace-events/run-order.ts";
import { TraceColumns } from "../../src/adapters/trace-events/trace-columns.ts";
import { EventSpool } from "../../src/adapters/trace-events/event-spool.ts";
import { GrowableU8 } from "../../src/adapters/common/growable.ts";
import { KIND_COMPLETE, KIND_EVENT } from "../../src/adapters/trace-events/event-kinds.ts";
import { chromeTraceAdapter } from "../../src/adapters/chrome-trace/adapter.ts";
import { perfettoAdapter } from "../../src/adapters/perfetto/adapter.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import {
  ROWS_PER_BATCH,
  TraceRowWriter,
} from "../../src/adapters/trace-events/trace-row-writer.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";

const addRow = TraceRowWriter.prototype.add;
import { FileSpillSpace } from "../../workers/spill-space.ts";
import { chromeTraceReference } from "./reference-chrome-trace/reference-adapter.ts";
import { chunked, runStream, streamedTableRows } from "./stream-harness.ts";
import { bufferRows } from "./stream-harness.ts";
import type { Row } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

const encoder = new TextEncoder();

/** A random trace of about `events` events on a few threads, in a shuffled-ish order. */
function randomTrace(seed: number, events: number): Uint8Array {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const names = ["a", "b", "c", "d", ""];
  const out: Record<string, unknown>[] = [];
  for (let tid = 1; tid <= 3; tid++)
    out.push({ ph: "M", name: "thread_name", pid: 1, tid, args: { name: `t${tid}` } });
  const clock = [0, 0, 0, 0];
  while (out.length < events) {
    const tid = 1 + Math.floor(random() * 3);
    // Coarse timestamps so that equal starts are common.
    const ts = clock[tid]! + Math.floor(random() * 3);
    clock[tid] = ts;
    const r = random();
    // Thread clock readings on most slices (tdur on X, tts on B and E), so thread times travel the
    // same paths.
    const thread = (field: "tts" | "tdur", us: number) => (random() < 0.8 ? { [field]: us } : {});
    if (r < 0.4)
      out.push({
        ph: "X",
        name: pick(names),
        cat: "c",
        pid: 1,
        tid,
        ts,
        dur: Math.floor(random() * 6),
        ...thread("tdur", Math.floor(random() * 4)),
        ...(random() < 0.3 ? { args: { k: Math.floor(random() * 100) } } : {}),
      });
    else if (r < 0.45)
      // no dur: open until the track's end
      out.push({ ph: "X", name: pick(names), pid: 1, tid, ts });
    else if (r < 0.65)
      out.push({
        ph: "B",
        name: random() < 0.1 ? 7 : pick(names),
        pid: 1,
        tid,
        ts,
        ...thread("tts", ts / 2),
      });
    else if (r < 0.85)
      out.push({
        ph: "E",
        ...(random() < 0.7 ? { name: pick(names) } : {}),
        pid: 1,
        tid,
        ts,
        ...thread("tts", ts / 2),
      });
    else out.push({ ph: "i", name: "tick", pid: 1, tid, ts, s: "t" });
  }
  // Move some events earlier: tracks are then out of order in the input.
  for (let k = 0; k < out.length / 10; k++) {
    const i = 3 + Math.floor(random() * (out.length - 3));
    const j = Math.max(3, i - Math.floor(random() * 20));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return encoder.encode(JSON.stringify({ traceEvents: out }));
}

async function referenceRows(bytes: Uint8Array): Promise<Record<string, Row[]>> {
  const whole = await extracted(chromeTraceReference, {
    bytes,
    displayName: "case",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
  const tables = Object.fromEntries(
    chromeTraceAdapter.tables.map((t) => [t, bufferRows(whole.tables[t])]),
  );
  inCanonicalOrder(tables);
  return {
    ...tables,
    summary: [whole.summary as Row],
    limitations: whole.limitations as unknown as Row[],
  };
}

/**
 * Rows in an order that does not depend on spilling: events by index, stacks by id (spilled stacks
 * come out in path order).
 */
function inCanonicalOrder(tables: Record<string, Row[]>): void {
  tables.trace_events!.sort((a, b) => Number(a.event_index) - Number(b.event_index));
  tables.stacks!.sort((a, b) => String(a.stack_id).localeCompare(String(b.stack_id)));
}

/**
 * Writes runs "on another thread" as the encode pool does: later (after `delay` settled promises,
 * or a timer when negative), into the file, taking every run it is offered (the spool offers one
 * at a time). With `giveBack` the run's columns come back, as the pool moves them, and the spool
 * fills its next run in them. `writes` counts the runs it took.
 */
function laterOffload(delay: number, giveBack = false): RunOffload & { writes: number } {
  const offload = {
    writes: 0,
    write(file: SpillFile, run: HandedOverRun): Promise<unknown> {
      offload.writes++;
      const columns = run as TraceColumns;
      const write = () => {
        new RunWriter().write(file, columns, runOrder(columns));
        return giveBack ? columns.handOver().data : undefined;
      };
      if (delay < 0) return new Promise((done) => setTimeout(() => done(write()), 1));
      let later: Promise<void> = Promise.resolve();
      for (let k = 0; k < delay; k++) later = later.then(() => {});
      return later.then(write);
    },
  };
  return offload;
}

async function streamedRows(
  bytes: Uint8Array,
  spoolRunEvents: number,
  budgets: {
    maxStacksInMemory?: number;
    pendingEventsInMemory?: number;
    runOffload?: RunOffload;
  } = {},
): Promise<Record<string, Row[]>> {
  const run = await runStream(chromeTraceAdapter, bytes, {
    chunkSize: 4093,
    spoolRunEvents,
    spill: new MemorySpillSpace(),
    ...budgets,
  });
  const evidence: StreamedEvidence = run.evidence;
  const tables = Object.fromEntries(
    chromeTraceAdapter.tables.map((t) => [
      t,
      evidence.streamed.includes(t) ? streamedTableRows(run, t) : bufferRows(evidence.tables[t]!),
    ]),
  );
  inCanonicalOrder(tables);
  return {
    ...tables,
    summary: [evidence.summary as Row],
    limitations: evidence.limitations as unknown as Row[],
  };
}

describe("trace spool: streamed rows equal the whole-payload reference", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    test(`random trace, seed ${seed}, runs of 1, 5, 64 and all events`, async () => {
      const bytes = randomTrace(seed, 400);
      const reference = await referenceRows(bytes);
      expect(reference.trace_events!.length).toBeGreaterThan(200);
      for (const runEvents of [1, 5, 64, 1 << 20])
        expect(await streamedRows(bytes, runEvents)).toEqual(reference);
      // Stack tries spilling every few stacks (and merging dozens of runs) change nothing either,
      expect(await streamedRows(bytes, 64, { maxStacksInMemory: 1 })).toEqual(reference);
      for (const maxStacks of [3, 16])
        expect(await streamedRows(bytes, 64, { maxStacksInMemory: maxStacks })).toEqual(reference);
      // nor do waiting events overflowing to scratch space past 1, 2 or 7 held in memory,
      for (const pending of [1, 2, 7])
        expect(await streamedRows(bytes, 5, { pendingEventsInMemory: pending })).toEqual(reference);
      // nor runs written elsewhere while the scan goes on (the next runs written here while one
      // is out, or handed over in turn), finished before the rows are built.
      for (const delay of [0, 3, -1])
        for (const runEvents of [5, 64]) {
          const runOffload = laterOffload(delay);
          expect(await streamedRows(bytes, runEvents, { runOffload })).toEqual(reference);
          expect(runOffload.writes).toBeGreaterThan(0);
        }
    });
  }
});

describe("trace spool: the order rows are written in", () => {
  // Plain events (instants, counters) with nothing held before them on their track are written
  // at once, the rest once their start group is complete: either way a track's rows come
  // together, in (start, event_index) order.
  for (const seed of [1, 2, 3, 4]) {
    test(`random trace, seed ${seed}: each track's rows together, by start then event index`, async () => {
      const bytes = randomTrace(seed, 400);
      for (const [runEvents, pendingEventsInMemory] of [
        [5, undefined],
        [64, 2],
      ] as const) {
        const run = await runStream(chromeTraceAdapter, bytes, {
          chunkSize: 4093,
          spoolRunEvents: runEvents,
          spill: new MemorySpillSpace(),
          pendingEventsInMemory,
        });
        const rows = streamedTableRows(run, "trace_events");
        expect(rows.filter((r) => r.phase === "i").length).toBeGreaterThan(20);
        const done = new Set<string>();
        for (let k = 1; k < rows.length; k++) {
          const [a, b] = [rows[k - 1]!, rows[k]!];
          if (a.track_id !== b.track_id) {
            done.add(String(a.track_id));
            expect(done.has(String(b.track_id))).toBe(false);
            continue;
          }
          const order =
            Number(a.ts_ns) - Number(b.ts_ns) || Number(a.event_index) - Number(b.event_index);
          expect(order).toBeLessThan(0);
        }
      }
    });
  }
});

describe("trace spool: runs written elsewhere", () => {
  /** The spool's merged events as (track, start, seq, dur, kind, args) tuples. */
  async function mergedEvents(offload?: RunOffload, expectedEvents?: number): Promise<unknown[]> {
    const random = mulberry32(7);
    const spool = new EventSpool({ runEvents: 7, offload, expectedEvents });
    const encoder = new TextEncoder();
    for (let i = 0; i < 400; i++) {
      const k = spool.add();
      const cols = spool.cols;
      cols.track.array[k] = Math.floor(random() * 4);
      cols.startNs.array[k] = Math.floor(random() * 60);
      if (i % 3 !== 0) cols.durNs.array[k] = Math.floor(random() * 9);
      cols.kind.array[k] = i % 5 === 0 ? KIND_EVENT : KIND_COMPLETE;
      if (i % 4 === 0) cols.argsRef.array[k] = cols.args.add(encoder.encode(`{"i":${i}}`));
      // The scan yields now and then, as it does between chunks: written runs come back.
      if (i % 5 === 4) await new Promise((done) => setTimeout(done, 0));
    }
    await spool.runsWritten();
    const merge = spool.drain();
    const out: unknown[] = [];
    while (merge.next()) {
      const c = merge.current!;
      const args = c.args();
      out.push([c.v.track[c.i], c.v.start[c.i], c.v.seq[c.i], c.v.dur[c.i], c.v.kind[c.i]]);
      out.push(args === null ? null : new TextDecoder().decode(args));
    }
    spool.dispose();
    return out;
  }

  test("the next runs fill the columns a written run came back in; the merge is unchanged", async () => {
    const reference = await mergedEvents();
    expect(reference.length).toBe(800);
    const offload = laterOffload(0, true);
    // Every array handed over, to see the spool hand the same memory over again.
    const handed = new Set<ArrayBufferLike>();
    let refilled = 0;
    const counting: RunOffload = {
      write(file, run) {
        const buffer = (run as TraceColumns).startNs.array.buffer;
        if (handed.has(buffer)) refilled++;
        handed.add(buffer);
        return offload.write(file, run);
      },
    };
    expect(await mergedEvents(counting)).toEqual(reference);
    expect(refilled).toBeGreaterThan(3);
  });

  test("a trace expected to fill several runs has the other thread make its second run's columns", async () => {
    const reference = await mergedEvents();
    const offload = laterOffload(0, true);
    const made: ArrayBufferLike[] = [];
    const handed: ArrayBufferLike[] = [];
    const sparing: RunOffload = {
      write(file, run) {
        handed.push((run as TraceColumns).startNs.array.buffer);
        return offload.write(file, run);
      },
      spare(events) {
        const { data } = new TraceColumns(events).handOver();
        made.push(data.startNs.buffer);
        return new Promise((done) => setTimeout(() => done(data), 0));
      },
    };
    // Expected to fit one run: nothing is asked for.
    expect(await mergedEvents(sparing, 7)).toEqual(reference);
    expect(made).toHaveLength(0);
    handed.length = 0;
    expect(await mergedEvents(sparing, 400)).toEqual(reference);
    expect(made).toHaveLength(1);
    // The spare arrives when the scan first yields, before the first run is full: the run after
    // the first fills the spare's columns, not new ones.
    expect(handed.length).toBeGreaterThan(3);
    expect(handed[1]).toBe(made[0]!);
  });
});

describe("trace spool: spill files", () => {
  test("runs are spilled to the given space and deleted after the import", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flameox-spill-"));
    try {
      const spill = new FileSpillSpace(dir);
      let created = 0;
      const counting = { create: () => (created++, spill.create()) };
      const bytes = randomTrace(11, 3000);
      const evidence = await chromeTraceAdapter.extractStream!({
        chunks: chunked(bytes, 1 << 12),
        displayName: "case",
        limits: DEFAULT_ADAPTER_LIMITS,
        spill: counting,
        spoolRunEvents: 500,
        sink: { writeBatch: async () => {} },
      });
      expect(evidence.summary.events).toBe(3000);
      // Six runs of 500, all spilled: the last one too once the scan ends, so that the merge
      // holds no run's columns.
      expect(created).toBe(6);
      expect(readdirSync(dir)).toEqual([]);
      // A trace of one run is merged from its columns: nothing is spilled.
      created = 0;
      await chromeTraceAdapter.extractStream!({
        chunks: chunked(randomTrace(12, 400), 1 << 12),
        displayName: "case",
        limits: DEFAULT_ADAPTER_LIMITS,
        spill: counting,
        spoolRunEvents: 500,
        sink: { writeBatch: async () => {} },
      });
      expect(created).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    "a B open for the whole track: waiting events overflow to scratch files, rows are " +
      "unchanged, files are deleted",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "flameox-spill-"));
      try {
        // thread-main holds everything back; "phase" is held on scratch space when its E comes
        // 12,000 events later (its end is written into the spilled block), and "step" B/E
        // pairs end while still buffered.
        // Every B and E reads the thread clock, which runs at half the wall clock: thread times
        // must survive the overflow, including "phase", whose end is written into its spilled
        // block.
        const events: Record<string, unknown>[] = [
          { ph: "B", name: "thread-main", pid: 1, tid: 1, ts: 0, tts: 0 },
        ];
        let ts = 1;
        const x = (k: number) =>
          events.push({
            ph: "X",
            name: `task${k % 7}`,
            pid: 1,
            tid: 1,
            ts: ts++,
            dur: 1,
            args: { k },
          });
        for (let k = 0; k < 300; k++) x(k);
        const mark = (ph: string, name?: string) => (
          events.push({ ph, ...(name ? { name } : {}), pid: 1, tid: 1, ts, tts: ts / 2 }), ts++
        );
        mark("B", "phase");
        for (let k = 0; k < 12000; k++) {
          if (k % 100 === 0) mark("B", "step"), mark("E", "step");
          x(k);
        }
        mark("E", "phase");
        for (let k = 0; k < 500; k++) x(k);
        events.push(
          { ph: "E", pid: 1, tid: 1, ts: 1_000_000, tts: 500_000 },
          { ph: "B", name: "never-ends", pid: 1, tid: 1, ts: 1_000_001, tts: 500_000 },
        );
        const bytes = encoder.encode(JSON.stringify(events));
        const reference = await referenceRows(bytes);
        const spill = new FileSpillSpace(dir);
        let created = 0;
        const counting = { create: () => (created++, spill.create()) };
        const run = await runStream(chromeTraceAdapter, bytes, {
          spill: counting,
          pendingEventsInMemory: 100,
        });
        const rows = streamedTableRows(run, "trace_events").sort(
          (a, b) => Number(a.event_index) - Number(b.event_index),
        );
        expect(rows).toEqual(reference.trace_events!);
        expect(rows[0]).toMatchObject({
          name: "thread-main",
          dur_ns: "1000000000",
          thread_dur_ns: "500000000",
          depth: 0,
        });
        expect(rows.find((r) => r.name === "phase")).toMatchObject({
          dur_ns: String(12_241 * 1000),
          thread_dur_ns: String(12_241 * 500),
          depth: 1,
          flags: null,
        });
        expect(rows.find((r) => r.name === "step")).toMatchObject({
          dur_ns: "1000",
          thread_dur_ns: "500",
        });
        expect(rows.at(-1)).toMatchObject({ name: "never-ends", dur_ns: "0", thread_dur_ns: null });
        // The spool's single run stays in memory; the one file is the overflow's.
        expect(created).toBe(1);
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test(
    "the rows a long-open B held back reach the sink batch by batch, not built all at " + "once",
    async () => {
      const events: Record<string, unknown>[] = [
        { ph: "B", name: "thread-main", pid: 1, tid: 1, ts: 0 },
      ];
      for (let k = 0; k < 60_000; k++)
        events.push({ ph: "X", name: "task", pid: 1, tid: 1, ts: 1 + k, dur: 1 });
      events.push({ ph: "E", pid: 1, tid: 1, ts: 100_000 });
      const bytes = encoder.encode(JSON.stringify(events));
      let built = 0;
      const add = spyOn(TraceRowWriter.prototype, "add").mockImplementation(function (
        this: TraceRowWriter,
        ...row
      ) {
        built++;
        return addRow.apply(this, row);
      });
      try {
        let written = 0;
        let mostAhead = 0;
        await chromeTraceAdapter.extractStream!({
          chunks: chunked(bytes, 1 << 16),
          displayName: "case",
          limits: DEFAULT_ADAPTER_LIMITS,
          spill: new MemorySpillSpace(),
          sink: {
            writeBatch: async (batch) => {
              if (batch.table !== "trace_events") return;
              written += batch.length;
              mostAhead = Math.max(mostAhead, built - written);
            },
          },
        });
        expect(written).toBe(60_001);
        // At most the batch being filled is ahead of the sink (without pausing: ~44,000 rows).
        expect(mostAhead).toBeLessThan(ROWS_PER_BATCH);
      } finally {
        add.mockRestore();
      }
    },
  );

  test("a failing import deletes what it spilled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flameox-spill-"));
    try {
      const bytes = randomTrace(12, 3000);
      const failed = chromeTraceAdapter.extractStream!({
        chunks: chunked(bytes, 1 << 12),
        displayName: "case",
        limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 2500 },
        spill: new FileSpillSpace(dir),
        spoolRunEvents: 400,
        sink: { writeBatch: async () => {} },
      });
      const error = await failed.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FlameoxError);
      expect((error as FlameoxError).code).toBe("ARTIFACT_TOO_LARGE");
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("trace spool: the first run's size", () => {
  /** A vendored Perfetto trace twice over: more events than the columns start with. */
  const replicatedPerfetto = () => {
    const one = readFileSync(
      join(
        import.meta.dir,
        "../../fixtures/corpus/perfetto/perfetto-repo-nested_tracks.perfetto-trace",
      ),
    );
    return new Uint8Array(Buffer.concat([one, one]));
  };

  test("the expected events size the first run at once, up to a run; no hint starts small", () => {
    const capacity = (spool: EventSpool) => spool.cols.kind.array.length;
    expect(capacity(new EventSpool())).toBe(1024);
    expect(capacity(new EventSpool({ expectedEvents: 100 }))).toBe(1024);
    expect(capacity(new EventSpool({ expectedEvents: 70_000.5 }))).toBe(70_001);
    expect(capacity(new EventSpool({ expectedEvents: 70_000, runEvents: 5000 }))).toBe(5000);
    expect(capacity(new EventSpool({ expectedEvents: 1e12 }))).toBe(1 << 19);
    // A full first run never grows: its columns are the ones events were added to.
    const spool = new EventSpool({ expectedEvents: 3000, runEvents: 3000 });
    const columns = spool.cols.startNs.array;
    for (let i = 0; i < 3000; i++) spool.cols.startNs.array[spool.add()] = i;
    expect(spool.cols.startNs.array).toBe(columns);
  });

  test.each([
    ["Chrome trace", chromeTraceAdapter, () => randomTrace(13, 4000)],
    ["Perfetto trace", perfettoAdapter, () => replicatedPerfetto()],
  ])("a %s's import sizes its first run from the payload's size", async (_, adapter, trace) => {
    const bytes = trace();
    const rows = async (payloadBytes?: number) =>
      streamedTableRows(await runStream(adapter, bytes, { payloadBytes }), "trace_events");
    // Columns grow only when an event finds them full (TraceColumns.add): never, once sized.
    const growable = Object.getPrototypeOf(GrowableU8.prototype) as { extend(n: number): number };
    const grown = spyOn(growable, "extend");
    try {
      const unsized = await rows();
      expect(grown.mock.calls.length).toBeGreaterThan(0);
      grown.mockClear();
      expect(await rows(bytes.length)).toEqual(unsized);
      expect(grown.mock.calls.length).toBe(0);
    } finally {
      grown.mockRestore();
    }
  });
});
