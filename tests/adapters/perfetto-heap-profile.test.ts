/**
 * heapprofd native heap profiles in Perfetto traces (ProfilePacket), in both forms heapprofd
 * writes: Android Q's tables inside the packet and the later InternedData. The expected
 * values come from a reference computed here over the protobufjs-decoded packets (the
 * last complete dump of each process and heap, a dump running over `continued` packets),
 * sharing no code with the adapter.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { bufferRows } from "./stream-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";
import { extracted } from "./adapter-harness.ts";

const perfetto = adapterByName("perfetto")!;
type Msg = Record<string, any>;
const encode = (packets: Msg[]): Uint8Array =>
  Trace.encode(Trace.fromObject({ packet: packets })).finish();
const extract = async (bytes: Uint8Array): Promise<NormalizedEvidence> =>
  await extracted(perfetto, { bytes, displayName: "heap.pftrace", limits: DEFAULT_ADAPTER_LIMITS });
const utf8 = (text: string) => Buffer.from(text);

/** metric → "function@track" → [self, inclusive], from the decoded packets. */
function referenceHeap(bytes: Uint8Array): Map<string, Map<string, [number, number]>> {
  const trace = Trace.toObject(Trace.decode(bytes), { longs: Number, bytes: String }) as Msg;
  const seq = new Map<
    number,
    { names: Map<number, string>; frames: Map<number, number>; callstacks: Map<number, number[]> }
  >();
  const reading = new Map<number, Map<string, Map<number, Msg>>>();
  const latest = new Map<string, Map<number, Msg>>();
  const stackNames = new Map<string, string[]>();
  for (const p of trace.packet as Msg[]) {
    const id = p.trusted_packet_sequence_id ?? 0;
    if (!seq.has(id)) seq.set(id, { names: new Map(), frames: new Map(), callstacks: new Map() });
    const s = seq.get(id)!;
    const tables = [p.interned_data ?? {}, p.profile_packet ?? {}];
    for (const t of tables) {
      for (const n of [...(t.function_names ?? []), ...(t.strings ?? [])])
        s.names.set(n.iid, Buffer.from(n.str, "base64").toString());
      for (const f of t.frames ?? []) s.frames.set(f.iid, f.function_name_id);
      for (const c of t.callstacks ?? []) s.callstacks.set(c.iid, c.frame_ids);
    }
    if (!p.profile_packet) continue;
    const open = reading.get(id) ?? new Map<string, Map<number, Msg>>();
    reading.set(id, open);
    for (const d of p.profile_packet.process_dumps ?? []) {
      const key = `${d.pid}:${d.heap_name ?? ""}`;
      const dump = open.get(key) ?? new Map<number, Msg>();
      open.set(key, dump);
      for (const sample of d.samples ?? []) {
        const frames = s.callstacks.get(sample.callstack_id);
        if (!frames) continue;
        stackNames.set(
          `${id}/${sample.callstack_id}`,
          frames.map((f) => s.names.get(s.frames.get(f)!)!),
        );
        dump.set(sample.callstack_id, {
          ...sample,
          names: stackNames.get(`${id}/${sample.callstack_id}`),
        });
      }
    }
    if (!p.profile_packet.continued) {
      for (const [key, dump] of open) latest.set(key, dump);
      reading.delete(id);
    }
  }
  for (const open of reading.values())
    for (const [key, dump] of open) if (!latest.has(key)) latest.set(key, dump);
  const out = new Map<string, Map<string, [number, number]>>();
  const add = (metric: string, track: string, names: string[], value: number) => {
    if (value === 0) return;
    const m = out.get(metric) ?? new Map<string, [number, number]>();
    out.set(metric, m);
    for (const name of new Set(names)) {
      const cell = m.get(`${name}@${track}`) ?? [0, 0];
      cell[1] += value;
      m.set(`${name}@${track}`, cell);
    }
    m.get(`${names[names.length - 1]}@${track}`)![0] += value;
  };
  for (const [key, dump] of latest) {
    const track = `track:heap:${key}`;
    for (const s of dump.values()) {
      const atMax = s.self_max !== undefined;
      add(
        "inuse_space",
        track,
        s.names,
        atMax ? s.self_max : (s.self_allocated ?? 0) - (s.self_freed ?? 0),
      );
      add(
        "inuse_objects",
        track,
        s.names,
        atMax ? (s.self_max_count ?? 0) : (s.alloc_count ?? 0) - (s.free_count ?? 0),
      );
      if (!atMax) add("alloc_space", track, s.names, s.self_allocated ?? 0);
      if (!atMax) add("alloc_objects", track, s.names, s.alloc_count ?? 0);
    }
  }
  return out;
}

function measured(evidence: NormalizedEvidence): Map<string, Map<string, [number, number]>> {
  const names = new Map(
    bufferRows(evidence.tables.frames).map((f) => [f.frame_id, f.function as string]),
  );
  const out = new Map<string, Map<string, [number, number]>>();
  for (const m of bufferRows(evidence.tables.frame_measurements)) {
    const metric = m.metric as string;
    if (!["inuse_space", "inuse_objects", "alloc_space", "alloc_objects"].includes(metric))
      continue;
    const byName = out.get(metric) ?? new Map<string, [number, number]>();
    out.set(metric, byName);
    byName.set(`${names.get(m.frame_id)}@${m.track_id}`, [
      Number(m.self_value),
      Number(m.inclusive_value),
    ]);
  }
  return out;
}

const sample = (
  callstack_id: number,
  allocated: number,
  freed: number,
  allocs: number,
  frees: number,
): Msg => ({
  callstack_id,
  self_allocated: allocated,
  self_freed: freed,
  alloc_count: allocs,
  free_count: frees,
});

describe("heapprofd heap profiles", () => {
  // Interned form (Android R and later): callstack 3 recurses through main.
  const interned = {
    function_names: [
      { iid: 1, str: utf8("main") },
      { iid: 2, str: utf8("alloc_big") },
      { iid: 3, str: utf8("alloc_small") },
    ],
    mapping_paths: [{ iid: 10, str: utf8("libapp.so") }],
    mappings: [{ iid: 1, path_string_ids: [10] }],
    frames: [1, 2, 3].map((iid) => ({
      iid,
      function_name_id: iid,
      mapping_id: 1,
      rel_pc: 0x100 * iid,
    })),
    callstacks: [
      { iid: 1, frame_ids: [1, 2] },
      { iid: 2, frame_ids: [1, 3] },
      { iid: 3, frame_ids: [1, 2, 1, 3] },
    ],
  };
  const dump = (pid: number, heap: string, samples: Msg[]) => ({
    pid,
    heap_name: heap,
    timestamp: 100,
    samples,
  });
  const packets: Msg[] = [
    // A first dump, over two packets; then a later one that supersedes it.
    {
      trusted_packet_sequence_id: 5,
      sequence_flags: 1,
      interned_data: interned,
      profile_packet: {
        process_dumps: [dump(42, "libc.malloc", [sample(1, 1000, 200, 10, 2)])],
        continued: true,
        index: 0,
      },
    },
    {
      trusted_packet_sequence_id: 5,
      profile_packet: {
        process_dumps: [
          dump(42, "libc.malloc", [sample(2, 300, 300, 3, 3), sample(3, 64, 0, 1, 0)]),
        ],
        continued: false,
        index: 1,
      },
    },
    {
      trusted_packet_sequence_id: 5,
      profile_packet: {
        process_dumps: [
          dump(42, "libc.malloc", [
            sample(1, 5000, 1000, 50, 10),
            sample(2, 600, 100, 6, 1),
            sample(3, 128, 0, 2, 0),
          ]),
          dump(42, "com.android.art", [sample(2, 4096, 0, 4, 0)]),
        ],
        continued: false,
        index: 2,
      },
    },
    // An unknown callstack is dropped and counted.
    {
      trusted_packet_sequence_id: 5,
      profile_packet: {
        process_dumps: [dump(43, "libc.malloc", [sample(99, 8, 0, 1, 0), sample(1, 16, 0, 1, 0)])],
        continued: false,
        index: 3,
      },
    },
  ];

  test(
    "the last complete dump of each process and heap gives the in-use and allocated totals per " +
      "frame",
    async () => {
      const bytes = encode(packets);
      const evidence = await extract(bytes);
      const want = referenceHeap(bytes);
      expect(measured(evidence)).toEqual(want);
      // Read by hand from the last dump of process 42's malloc heap: callstack 1 holds 4000 bytes
      // in use, 2 holds 500, 3 holds 128.
      expect(want.get("inuse_space")!.get("alloc_big@track:heap:42:libc.malloc")).toEqual([
        4000, 4128,
      ]);
      expect(want.get("inuse_space")!.get("main@track:heap:42:libc.malloc")).toEqual([0, 4628]);
      expect(want.get("alloc_objects")!.get("alloc_small@track:heap:42:com.android.art")).toEqual([
        4, 4,
      ]);
      expect(evidence.summary).toMatchObject({ heap_dumps: 3 });
      expect(String(evidence.summary.metrics)).toBe(
        "inuse_space,inuse_objects,alloc_space,alloc_objects",
      );
      expect(evidence.limitations.find((l) => l.code === "unresolved_heap_callstacks")?.count).toBe(
        1,
      );
      expect(evidence.limitations.map((l) => l.code)).toContain("heap_values_sampled");
      // Heap tracks are named by the heap, in the process.
      const row = bufferRows(evidence.tables.frame_measurements).find(
        (m) => m.track_id === "track:heap:42:com.android.art",
      )!;
      expect(row).toMatchObject({ thread_name: "com.android.art", unit: "bytes" });
      // Stacks: one per distinct path and metric, summed over processes and heaps (4000 + 16
      // from process 43; 500 + 4096 from the ART heap), the recursive one with its frames in order.
      const frames = new Map(bufferRows(evidence.tables.frames).map((f) => [f.frame_id, f]));
      const stacks = bufferRows(evidence.tables.stacks).filter((s) => s.metric === "inuse_space");
      const paths = stacks
        .map((s) => [
          (s.frame_ids as string[]).map((id) => frames.get(id)!.function).join(">"),
          Number(s.duration_ns),
        ])
        .sort();
      expect(paths).toEqual([
        ["main>alloc_big", 4016],
        ["main>alloc_big>main>alloc_small", 128],
        ["main>alloc_small", 4596],
      ]);
      expect(frames.get((stacks[0]!.frame_ids as string[])[0]!)).toMatchObject({
        module: "libapp.so",
      });
      await expectSameOutcome(perfetto, bytes, { displayName: "heap.pftrace", chunkSize: 5 });
      // A trace that starts with a heap dump is recognised whatever its name.
      const q = encode([{ profile_packet: packets[0]!.profile_packet }, ...packets]);
      expect(
        detectAdapter({ head: "", headBytes: q.subarray(0, 65536), displayName: "dump" })?.name,
      ).toBe("perfetto");
    },
  );

  test(
    "Android Q's per-packet tables, a dump taken at the heap's peak, and a dump cut off at the " +
      "end",
    async () => {
      const q = {
        strings: [
          { iid: 1, str: utf8("main") },
          { iid: 2, str: utf8("grow") },
          { iid: 3, str: utf8("libq.so") },
        ],
        mappings: [{ iid: 1, path_string_ids: [3] }],
        frames: [
          { iid: 1, function_name_id: 1, mapping_id: 1 },
          { iid: 2, function_name_id: 2, mapping_id: 1 },
        ],
        callstacks: [{ iid: 7, frame_ids: [1, 2] }],
      };
      const bytes = encode([
        {
          trusted_packet_sequence_id: 9,
          profile_packet: {
            ...q,
            process_dumps: [
              {
                pid: 7,
                timestamp: 5,
                samples: [{ callstack_id: 7, self_max: 2048, self_max_count: 2 }],
              },
            ],
            continued: false,
          },
        },
        // Sequence 11 starts a dump that never ends: it is used, and flagged, because process 8 has
        // no complete one.
        {
          trusted_packet_sequence_id: 11,
          profile_packet: {
            ...q,
            process_dumps: [{ pid: 8, timestamp: 5, samples: [sample(7, 512, 0, 1, 0)] }],
            continued: true,
          },
        },
      ]);
      const evidence = await extract(bytes);
      expect(measured(evidence)).toEqual(referenceHeap(bytes));
      const got = measured(evidence);
      expect(got.get("inuse_space")!.get("grow@track:heap:7:")).toEqual([2048, 2048]);
      expect(got.get("alloc_space")!.has("grow@track:heap:7:")).toBe(false);
      expect(got.get("alloc_space")!.get("grow@track:heap:8:")).toEqual([512, 512]);
      expect(evidence.limitations.find((l) => l.code === "heap_dump_incomplete")?.count).toBe(1);
      expect(bufferRows(evidence.tables.frames).find((f) => f.function === "grow")).toMatchObject({
        module: "libq.so",
        symbolization: "complete",
      });
      await expectSameOutcome(perfetto, bytes, { displayName: "heap-q.pftrace", chunkSize: 3 });
    },
  );
});
