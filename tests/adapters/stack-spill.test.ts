/**
 * Stack tries that spill (src/adapters/common/stack-runs.ts): a trie capped at a few
 * stacks, spilling runs and merging them (dozens at once and in cascades), must emit
 * exactly the stacks of an unbounded trie — same ids, counts, durations, first times and
 * tracks — and delete every run it wrote. Checked on random paths directly and on real
 * Perfetto traces (slices and CPU samples) end to end, there together with waiting
 * events overflowing to scratch space (trace-events/pending-overflow.ts).
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { SpillFile, SpillSpace } from "../../src/adapters/adapter.ts";
import type { FrameRegistry } from "../../src/adapters/common/frame-registry.ts";
import { StackTrie, ROOT_STACK } from "../../src/adapters/common/stack-trie.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { corpusFiles } from "./corpus-files.ts";
import { numberedFrames } from "./numbered-frames.ts";
import type { Row } from "./evidence-checks.ts";
import { bufferRows, runStream, streamedRows, streamedTableRows } from "./stream-harness.ts";
import { writeStackChunks } from "../../src/adapters/common/stack-chunks.ts";
import type { ColumnBatch } from "../../src/domain/column-batch.ts";

/** A MemorySpillSpace that counts the files it made and those still alive. */
class CountingSpace implements SpillSpace {
  created = 0;
  alive = 0;
  private readonly inner = new MemorySpillSpace();
  create(): SpillFile {
    const file = this.inner.create();
    this.created++;
    this.alive++;
    return {
      append: (b) => file.append(b),
      overwrite: (b, p) => file.overwrite(b, p),
      read: (t, p) => file.read(t, p),
      get size() {
        return file.size;
      },
      dispose: () => (this.alive--, file.dispose()),
    };
  }
}

/** A base whose nanoseconds exceed 2^53: first_ts_ns must be exact past doubles. */
const CLOCK_BASE_US = 1_700_000_000_123_456;

const byId = (rows: Row[]) =>
  rows.sort((a, b) => String(a.stack_id).localeCompare(String(b.stack_id)));

const frameRegistry = (n: number): FrameRegistry => numberedFrames(n, "js");

/**
 * The trie's stacks as TableBuffer rows (`emit`), or as the column batches a streaming sink gets,
 * `batchRows` at a time.
 */
async function emitted(trie: StackTrie, frames: FrameRegistry, batchRows?: number): Promise<Row[]> {
  const tracks = (t: number) => ({ id: `track-${t}` }) as never;
  const clock = new NsClock(CLOCK_BASE_US);
  if (batchRows === undefined) {
    const table = new TableBuffer(EVIDENCE_SCHEMAS.stacks);
    trie.emit(table, frames, clock, tracks);
    return byId(bufferRows(table));
  }
  const batches: ColumnBatch[] = [];
  await writeStackChunks(
    { writeBatch: async (b) => void batches.push(b) },
    [trie],
    frames,
    clock,
    tracks,
    batchRows,
  );
  expect(batches.every((b) => b.length <= batchRows)).toBe(true);
  return byId(streamedRows(batches, "stacks"));
}

describe("stack trie spilling", () => {
  for (const seed of [1, 2, 3]) {
    test(
      `random paths, seed ${seed}: a trie of 1–7 stacks emits what an unbounded one ` + `does`,
      async () => {
        const random = mulberry32(seed);
        const frames = frameRegistry(6);
        const samples = Array.from({ length: 3000 }, () => ({
          path: Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
            Math.floor(random() * 6),
          ),
          count: 1 + Math.floor(random() * 3),
          dur: Math.floor(random() * 1000),
          first: Math.floor(random() * 1e6),
          track: Math.floor(random() * 3),
        }));
        const record = (trie: StackTrie, spillEach: boolean) => {
          for (const s of samples) {
            if (spillEach) trie.spillIfFull();
            let stack = ROOT_STACK;
            for (const f of s.path) stack = trie.child(stack, f);
            trie.add(stack, s.count, s.dur, s.first, s.track);
          }
        };
        const unbounded = new StackTrie("wall_time");
        record(unbounded, false);
        const reference = await emitted(unbounded, frames);
        expect(reference.some((r) => r.track_id === null)).toBe(true); // mixed tracks are exercised
        // The rows themselves, computed here from the samples: one per distinct path.
        const expected = new Map<
          string,
          { ids: string[]; count: number; dur: number; first: number; tracks: Set<number> }
        >();
        for (const s of samples) {
          const ids = s.path.map((f) => frames.ids[f]!);
          const e = expected.get(ids.join("/")) ?? {
            ids,
            count: 0,
            dur: 0,
            first: Infinity,
            tracks: new Set<number>(),
          };
          e.count += s.count;
          e.dur += s.dur;
          e.first = Math.min(e.first, s.first);
          e.tracks.add(s.track);
          expected.set(ids.join("/"), e);
        }
        const sha = (text: string) => createHash("sha256").update(text).digest("hex");
        expect(reference).toEqual(
          byId(
            [...expected.values()].map((e) => ({
              stack_id: "st_" + sha("wall_time\u0000" + e.ids.join("\u0001")).slice(0, 20),
              metric: "wall_time",
              frame_ids: e.ids,
              leaf_frame_id: e.ids[e.ids.length - 1]!,
              sample_count: String(e.count),
              duration_ns: String(e.dur),
              first_ts_ns: String(BigInt(CLOCK_BASE_US) * 1000n + BigInt(e.first)),
              track_id: e.tracks.size === 1 ? `track-${[...e.tracks][0]}` : null,
            })),
          ),
        );

        for (const maxStacks of [1, 3, 7]) {
          const space = new CountingSpace();
          const capped = new StackTrie("wall_time", { space, maxStacks });
          record(capped, true);
          // Hundreds of runs: the merge cascades through intermediate runs.
          expect(space.created).toBeGreaterThan(100);
          expect(await emitted(capped, frames, 97)).toEqual(reference);
          expect(space.alive).toBe(0);
        }
      },
    );
  }

  test("a trie that never filled does not spill", async () => {
    const space = new CountingSpace();
    const trie = new StackTrie("wall_time", { space, maxStacks: 10 });
    trie.add(trie.child(trie.child(ROOT_STACK, 0), 1), 2, 5, 0, 0);
    expect(trie.spillIfFull()).toBe(false);
    expect(await emitted(trie, frameRegistry(2))).toHaveLength(1);
    expect(await emitted(trie, frameRegistry(2), 16)).toEqual(
      await emitted(trie, frameRegistry(2)),
    );
    expect(space.created).toBe(0);
  });
});

/**
 * A Perfetto trace (protobufjs) of CPU samples over 300 random interned callstacks on two threads.
 */
function sampledTrace(seed: number): Uint8Array {
  const random = mulberry32(seed);
  const functions = Array.from({ length: 8 }, (_, i) => ({
    iid: i + 1,
    str: Buffer.from(`fn${i}`),
  }));
  const frames = functions.map((f) => ({ iid: f.iid, function_name_id: f.iid }));
  const callstacks = Array.from({ length: 300 }, (_, i) => ({
    iid: i + 1,
    frame_ids: Array.from(
      { length: 1 + Math.floor(random() * 6) },
      () => 1 + Math.floor(random() * 8),
    ),
  }));
  const packets: Record<string, unknown>[] = [
    {
      trusted_packet_sequence_id: 3,
      sequence_flags: 1,
      incremental_state_cleared: true,
      timestamp: 1000,
      interned_data: { function_names: functions, frames, callstacks },
    },
  ];
  for (let k = 0; k < 40; k++) {
    const tid = 201 + (k % 2);
    const callstack_iid = Array.from({ length: 25 }, () => 1 + Math.floor(random() * 300));
    packets.push({
      trusted_packet_sequence_id: 3,
      timestamp: 2000 + 1000 * k,
      thread_descriptor: { pid: 200, tid },
      streaming_profile_packet: { callstack_iid, timestamp_delta_us: callstack_iid.map(() => 1) },
    });
  }
  return Trace.encode(Trace.fromObject({ packet: packets })).finish();
}

describe("stack trie spilling on Perfetto traces", () => {
  const perfetto = adapterByName("perfetto")!;
  const traces = [
    ...corpusFiles("perfetto").map((f) => ({
      name: f.name,
      bytes: () => new Uint8Array(readFileSync(f.path)),
    })),
    { name: "sampled (protobufjs)", bytes: () => sampledTrace(5) },
  ];
  for (const trace of traces) {
    test(
      `${trace.name}: a trie of 4 stacks and 3 waiting events in memory give the unbounded ` +
        `import`,
      async () => {
        const bytes = trace.bytes();
        const whole = await runStream(perfetto, bytes);
        const reference = byId(
          whole.evidence.streamed.includes("stacks")
            ? streamedTableRows(whole, "stacks")
            : bufferRows(whole.evidence.tables.stacks!),
        );
        expect(reference.length).toBeGreaterThan(4);
        if (trace.name.startsWith("sampled"))
          expect(reference.filter((r) => r.metric === "samples").length).toBeGreaterThan(100);
        const space = new CountingSpace();
        const capped = await runStream(perfetto, bytes, {
          spill: space,
          maxStacksInMemory: 4,
          pendingEventsInMemory: 3,
        });
        expect(byId(streamedTableRows(capped, "stacks"))).toEqual(reference);
        expect(space.created).toBeGreaterThan(1);
        expect(space.alive).toBe(0);
        for (const table of ["frames", "frame_measurements", "call_edges"] as const) {
          expect(bufferRows(capped.evidence.tables[table]!)).toEqual(
            bufferRows(whole.evidence.tables[table]!),
          );
        }
        const byIndex = (rows: Row[]) =>
          rows.sort((a, b) => Number(a.event_index) - Number(b.event_index));
        expect(byIndex(streamedTableRows(capped, "trace_events"))).toEqual(
          byIndex(streamedTableRows(whole, "trace_events")),
        );
      },
    );
  }
});
