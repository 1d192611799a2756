/**
 * Perfetto CPU samples are summed per resolved callstack and track before they are added
 * (src/adapters/perfetto/perfetto-samples.ts). Against a reference computed here sample by
 * sample from the interned data as it stands at each sample: two sequences, streaming profile
 * packets and perf samples on several threads, callstacks interned again after a state clear
 * and without one, frames that arrive after the first samples that name them (those samples keep
 * an address frame). And a bound that flushes the waiting samples every few samples gives the
 * same stacks and measures as one flush at the end.
 */
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { FrameRegistry } from "../../src/adapters/common/frame-registry.ts";
import { NsClock } from "../../src/adapters/common/time-ns.ts";
import { StringTable } from "../../src/adapters/common/string-table.ts";
import { PerfettoSamples } from "../../src/adapters/perfetto/perfetto-samples.ts";
import { SequenceState } from "../../src/adapters/perfetto/sequence-state.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { emptyTables } from "../../src/domain/normalized-evidence.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";

const FUNCTIONS = 12;

interface Sample {
  thread: number;
  path: string[];
}

/** The trace's packets and the reference's samples (root-first function names, thread). */
function sampledTrace(seed: number): { bytes: Uint8Array; samples: Sample[] } {
  const random = mulberry32(seed);
  const packets: Record<string, unknown>[] = [];
  const samples: Sample[] = [];
  const functionNames = Array.from({ length: FUNCTIONS }, (_, i) => ({
    iid: i + 1,
    str: Buffer.from(`fn${i}`),
  }));
  // Per sequence: callstack iid → frame iids, and the frame iids interned so far.
  const stacks = new Map<number, Map<number, number[]>>();
  const known = new Map<number, Set<number>>();
  const randomStack = () =>
    Array.from(
      { length: 1 + Math.floor(random() * 7) },
      () => 1 + Math.floor(random() * FUNCTIONS),
    );
  const intern = (seq: number, clear: boolean, frames: number[], callstacks: number[]) => {
    if (clear) {
      stacks.set(seq, new Map());
      known.set(seq, new Set());
    }
    const defs = callstacks.map((iid) => ({ iid, frame_ids: randomStack() }));
    for (const d of defs) stacks.get(seq)!.set(d.iid, d.frame_ids);
    for (const f of frames) known.get(seq)!.add(f);
    packets.push({
      trusted_packet_sequence_id: seq,
      ...(clear ? { sequence_flags: 1, incremental_state_cleared: true } : {}),
      timestamp: 1000 + packets.length,
      interned_data: {
        function_names: clear ? functionNames : [],
        frames: frames.map((f) => ({ iid: f, function_name_id: f })),
        callstacks: defs,
      },
    });
  };
  const resolve = (seq: number, iid: number): string[] =>
    stacks
      .get(seq)!
      .get(iid)!
      .map((f) => (known.get(seq)!.has(f) ? `fn${f - 1}` : "0x0"));
  const sampleOn = (seq: number, threads: number[]) => {
    for (let k = 0; k < 30; k++) {
      const thread = threads[Math.floor(random() * threads.length)]!;
      const iids = Array.from({ length: 20 }, () => 1 + Math.floor(random() * 40));
      if (random() < 0.5) {
        packets.push({
          trusted_packet_sequence_id: seq,
          timestamp: 5000 + 100 * packets.length,
          thread_descriptor: { pid: 300, tid: thread },
          streaming_profile_packet: {
            callstack_iid: iids,
            timestamp_delta_us: iids.map(() => 1),
          },
        });
        for (const iid of iids) samples.push({ thread, path: resolve(seq, iid) });
      } else
        for (const iid of iids) {
          packets.push({
            trusted_packet_sequence_id: seq,
            timestamp: 5000 + 100 * packets.length,
            perf_sample: { pid: 300, tid: thread, callstack_iid: iid },
          });
          samples.push({ thread, path: resolve(seq, iid) });
        }
    }
  };
  const all = Array.from({ length: 40 }, (_, i) => i + 1);
  const frames = Array.from({ length: FUNCTIONS }, (_, i) => i + 1);
  // Sequence 3: frames 11 and 12 arrive late; its callstacks are interned again after a clear.
  intern(3, true, frames.slice(0, 10), all);
  intern(5, true, frames, all);
  sampleOn(3, [401, 402]);
  sampleOn(5, [501]);
  intern(3, false, [11, 12], []);
  sampleOn(3, [401, 402]);
  // Sequence 5: some callstacks interned again without a clear.
  intern(5, false, [], all.slice(0, 15));
  sampleOn(5, [501, 502]);
  intern(3, true, frames, all);
  sampleOn(3, [401]);
  sampleOn(5, [501]);
  return { bytes: Trace.encode(Trace.fromObject({ packet: packets })).finish(), samples };
}

/** The reference: each sample's stack and each function's self and inclusive samples, per thread. */
function reference(samples: Sample[]) {
  const stacks = new Map<string, number>();
  const measures = new Map<string, [number, number]>();
  for (const { thread, path } of samples) {
    const key = path.join(";");
    stacks.set(key, (stacks.get(key) ?? 0) + 1);
    for (const name of new Set(path)) {
      const m = measures.get(`${thread} ${name}`) ?? [0, 0];
      m[1]++;
      if (name === path[path.length - 1]) m[0]++;
      measures.set(`${thread} ${name}`, m);
    }
  }
  return { stacks, measures };
}

describe("Perfetto CPU samples summed per callstack", () => {
  for (const seed of [1, 2, 3])
    test(`the stacks and measures of every sample as the reference counts them (seed ${seed})`, async () => {
      const { bytes, samples } = sampledTrace(seed);
      const expected = reference(samples);
      const run = await runStream(adapterByName("perfetto")!, bytes);
      const { tables } = run.evidence;
      const functionOf = new Map(bufferRows(tables.frames!).map((f) => [f.frame_id, f.function]));
      const got = new Map<string, number>();
      for (const s of streamedTableRows(run, "stacks")) {
        if (s.metric !== "samples") continue;
        const key = (s.frame_ids as string[]).map((id) => functionOf.get(id)).join(";");
        got.set(key, (got.get(key) ?? 0) + Number(s.sample_count));
      }
      expect(got).toEqual(expected.stacks);
      const tracks = new Map(bufferRows(tables.tracks!).map((t) => [t.track_id, t.tid]));
      const measures = new Map<string, [number, number]>();
      for (const m of bufferRows(tables.frame_measurements!)) {
        if (m.metric !== "samples") continue;
        // A thread's perf samples and its profile packets' samples may be two tracks: summed.
        const key = `${tracks.get(m.track_id)} ${functionOf.get(m.frame_id)}`;
        const sum = measures.get(key) ?? [0, 0];
        measures.set(key, [sum[0] + Number(m.self_samples), sum[1] + Number(m.inclusive_samples)]);
      }
      expect(measures).toEqual(expected.measures);
      expect(run.evidence.summary.cpu_samples).toBe(samples.length);
    });

  test("flushing every few samples gives the stacks and measures of one flush at the end", () => {
    const run = (maxPendingFrames: number) => {
      const random = mulberry32(9);
      const frames = new FrameRegistry();
      const strings = new StringTable();
      const samples = new PerfettoSamples(frames, strings, undefined, maxPendingFrames);
      const state = new SequenceState();
      for (let f = 1; f <= FUNCTIONS; f++) {
        state.functions.set(f, strings.id(`fn${f - 1}`));
        state.frames.set(f, { functionNameId: f, mappingId: 0, relPc: 0n });
      }
      const intern = () => {
        for (let iid = 1; iid <= 30; iid++)
          state.callstacks.set(
            iid,
            Array.from(
              { length: 1 + Math.floor(random() * 6) },
              () => 1 + Math.floor(random() * FUNCTIONS),
            ),
          );
        state.resolvedCallstacks.clear();
      };
      intern();
      for (let k = 0; k < 5000; k++) {
        if (k === 2500) intern();
        samples.add(state, 1 + Math.floor(random() * 30), 1000 + k, Math.floor(random() * 3));
      }
      samples.flush();
      const tables = emptyTables();
      const track = (t: number) => ({ id: `t${t}`, processName: null, threadName: null });
      samples.measures.emit(tables.frame_measurements, tables.call_edges, frames, track);
      samples.stacks.emit(tables.stacks, frames, new NsClock(0), track);
      return ["stacks", "frame_measurements", "call_edges"].map((t) =>
        bufferRows(tables[t as "stacks"]),
      );
    };
    const once = run(1 << 20);
    expect(once[0]!.length).toBeGreaterThan(30);
    expect(run(5)).toEqual(once);
  });
});
