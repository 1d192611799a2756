/**
 * simpleperf's report_sample protobuf: every corpus file imports, and per-function self
 * samples and values per event equal an independent reading of the raw records
 * (reference-simpleperf.ts walks the wire format without the adapter's schema). Hand-made
 * files check metrics per event, threads and processes, unnamed and Java frames, lost
 * samples, the streaming path, and each refusal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { tempWorkspace } from "../helpers.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { detectAdapter } from "../../src/adapters/registry.ts";
import { simpleperfProtoAdapter } from "../../src/adapters/simpleperf-proto/adapter.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { referenceSimpleperf, type RefFile, writeSimpleperf } from "./reference-simpleperf.ts";
import { bufferRows, runStream, streamedTableRows } from "./stream-harness.ts";
import { CountingSpillSpace } from "./spill-counting.ts";
import { extracted } from "./adapter-harness.ts";

const files = corpusFiles("simpleperf").filter((f) => f.name.includes(".trace"));
const extract = async (bytes: Uint8Array, maxEvents = DEFAULT_ADAPTER_LIMITS.maxEvents) =>
  await extracted(simpleperfProtoAdapter, {
    bytes,
    displayName: "t",
    limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents },
  });

function selfByFunction(
  evidence: NormalizedEvidence,
  metric: string,
): { samples: Map<string, number>; values: Map<string, number> } {
  const names = new Map(
    rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
  );
  const samples = new Map<string, number>();
  const values = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric || Number(m.self_samples) === 0) continue;
    const name = names.get(m.frame_id as string)!;
    samples.set(name, (samples.get(name) ?? 0) + Number(m.self_samples));
    values.set(name, (values.get(name) ?? 0) + Number(m.self_value));
  }
  return { samples, values };
}

const sorted = (m: Map<string, number>) =>
  [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

const LIBC: RefFile = {
  id: 0,
  path: "/apex/com.android.runtime/lib64/bionic/libc.so",
  symbols: ["memcpy", "__start_thread"],
};
const APP: RefFile = {
  id: 1,
  path: "/data/app/com.example/oat/arm64/base.odex",
  symbols: ["com.example.Main.work", "com.example.Main.run"],
};
const KERNEL: RefFile = { id: 2, path: "[kernel.kallsyms]", symbols: ["el0_svc"] };

async function failure(bytes: Uint8Array): Promise<FlameoxError> {
  try {
    await extract(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    return error as FlameoxError;
  }
  throw new Error("extraction succeeded but was expected to fail");
}

describe("simpleperf-proto adapter", () => {
  for (const file of files) {
    test(
      `${file.name}: detected, and self samples and values per function equal an independent ` +
        `reading`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(
          detectAdapter({
            head: new TextDecoder().decode(bytes.subarray(0, 65536)),
            headBytes: bytes.subarray(0, 65536),
            displayName: "upload",
          })?.name,
        ).toBe("simpleperf-proto");
        const evidence = await extract(bytes);
        const reference = referenceSimpleperf(bytes);
        expect(reference.length).toBeGreaterThan(0);
        expect(evidence.summary.samples).toBe(reference.reduce((n, e) => n + e.samples, 0));
        for (const ref of reference) {
          // cpu-clock counts nanoseconds; sched_switch samples are counted.
          const metric =
            ref.event === "cpu-clock" || ref.event === "task-clock"
              ? "cpu_time"
              : ref.event === "cpu-cycles"
                ? "cycles"
                : "samples";
          const got = selfByFunction(evidence, metric);
          expect([file.name, metric, sorted(got.samples)]).toEqual([
            file.name,
            metric,
            sorted(ref.selfSamples),
          ]);
          expect(sorted(got.values)).toEqual(
            sorted(metric === "samples" ? ref.selfSamples : ref.selfCount),
          );
        }
      },
    );
  }

  test.skipIf(files.length === 0)(
    "the corpus file's meta info, threads and context switches are described (external corpus)",
    async () => {
      const evidence = await extract(loadPayload(files[0]!.path));
      expect(evidence).toMatchObject({
        producer: "simpleperf",
        summary: {
          app_package_name: "com.example.sampleapplication",
          trace_offcpu: true,
          format_version: 1,
        },
      });
      expect(
        evidence.limitations.find((l) => l.code === "context_switches_not_imported")?.count,
      ).toBeGreaterThan(0);
      const threads = new Set(
        rowsOf(evidence.tables.frame_measurements).map(
          (m) => `${m.track_id}|${m.process_name}|${m.thread_name}`,
        ),
      );
      expect(threads.size).toBeGreaterThan(5);
      expect([...threads].some((t) => /^\d+:\d+\|com\.example\.sampleapp\w*\|/.test(t))).toBe(true);
    },
  );

  const twoEvents = writeSimpleperf({
    meta: { events: ["cpu-clock", "cpu-cycles"], app: "com.example" },
    samples: [
      {
        time: 1_869_019_844_661n,
        tid: 10,
        event: 0,
        count: 250_000,
        chain: [
          { file: 0, symbol: 0 },
          { file: 1, symbol: 0, execution: 2 },
          { file: 1, symbol: 1 },
          { file: 0, symbol: 1 },
        ],
      },
      {
        time: 1_869_020_094_661n,
        tid: 11,
        event: 0,
        count: 250_000,
        chain: [
          { file: 1, symbol: 0, execution: 1 },
          { file: 1, symbol: 1 },
          { file: 0, symbol: 1 },
        ],
      },
      {
        time: 1_869_020_094_700n,
        tid: 11,
        event: 1,
        count: 90_000,
        chain: [
          { file: 2, symbol: 0 },
          { file: 0, symbol: -1 },
          { file: 0, symbol: 1 },
        ],
      },
      { time: 1_869_020_100_000n, tid: 12, event: 0, count: 250_000, chain: [] },
    ],
    lost: [5, 2],
    threads: [
      { tid: 10, pid: 10, name: "example" },
      { tid: 11, pid: 10, name: "worker" },
    ],
    files: [LIBC, APP, KERNEL],
  });

  test(
    "each event is weighted by its count under its own metric; threads are tracks of their " +
      "process",
    async () => {
      const evidence = await extract(twoEvents);
      expect(String(evidence.summary.metrics).split(",").sort()).toEqual(["cpu_time", "cycles"]);
      expect(sorted(selfByFunction(evidence, "cpu_time").values)).toEqual([
        ["com.example.Main.work", 250_000],
        ["memcpy", 250_000],
      ]);
      expect(sorted(selfByFunction(evidence, "cycles").values)).toEqual([["el0_svc", 90_000]]);
      const tracks = new Set(
        rowsOf(evidence.tables.frame_measurements).map(
          (m) => `${m.track_id}|${m.process_name}|${m.thread_name}`,
        ),
      );
      expect([...tracks].sort()).toEqual(["10:10|example|example", "10:11|example|worker"]);
      expect(evidence.limitations.map((l) => [l.code, l.count])).toEqual(
        expect.arrayContaining([
          ["samples_without_stack", 1],
          ["lost_samples", 2],
          ["missing_symbols", 1],
        ]),
      );
      expect(evidence.summary).toMatchObject({
        samples: 4,
        recorded_samples: 5,
        lost_samples: 2,
        sample_span_ns: 255_339,
        app_package_name: "com.example",
      });
      const stacks = rowsOf(evidence.tables.stacks);
      expect(stacks.map((s) => s.first_ts_ns).sort()).toEqual([
        1_869_019_844_661n,
        1_869_020_094_661n,
        1_869_020_094_700n,
      ]);
    },
  );

  test(
    "frames: kernel, Java (by execution type " + "or dex file) and one [unknown] per file",
    async () => {
      const frames = rowsOf((await extract(twoEvents)).tables.frames)
        .map((f) => `${f.language}|${f.function}|${f.module}`)
        .sort();
      expect(frames).toEqual([
        `java|com.example.Main.run|${APP.path}`,
        `java|com.example.Main.work|${APP.path}`,
        `kernel|el0_svc|[kernel.kallsyms]`,
        `native|[unknown]|${LIBC.path}`,
        `native|__start_thread|${LIBC.path}`,
        `native|memcpy|${LIBC.path}`,
      ]);
    },
  );

  test("callers: the first callchain entry is the leaf", async () => {
    const evidence = await extract(twoEvents);
    const names = new Map(
      rowsOf(evidence.tables.frames).map((f) => [f.frame_id as string, f.function as string]),
    );
    const edges = rowsOf(evidence.tables.call_edges)
      .filter((e) => e.metric === "cpu_time")
      .map(
        (e) => `${names.get(e.parent_frame_id as string)}>${names.get(e.child_frame_id as string)}`,
      );
    expect(edges.sort()).toEqual([
      "__start_thread>com.example.Main.run",
      "com.example.Main.run>com.example.Main.work",
      "com.example.Main.work>memcpy",
    ]);
  });

  test(
    "streaming in 7-byte chunks with stacks spilled every 2 gives the rows of the " +
      "whole-payload path",
    async () => {
      const whole = await extract(twoEvents);
      const run = await runStream(simpleperfProtoAdapter, twoEvents, {
        chunkSize: 7,
        spill: new MemorySpillSpace(),
        maxStacksInMemory: 2,
      });
      const key = (r: Record<string, unknown>) =>
        JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? String(v) : v));
      expect(streamedTableRows(run, "stacks").map(key).sort()).toEqual(
        rowsOf(whole.tables.stacks)
          .map((r) => ({
            ...r,
            sample_count: String(r.sample_count),
            duration_ns: String(r.duration_ns),
            first_ts_ns: r.first_ts_ns === null ? null : String(r.first_ts_ns),
          }))
          .map(key)
          .sort(),
      );
      expect(rowsOf(run.evidence.tables.frame_measurements!).map(key).sort()).toEqual(
        rowsOf(whole.tables.frame_measurements).map(key).sort(),
      );
      expect(run.evidence.summary).toEqual(whole.summary);
    },
  );

  /** Streams with samples spilled past a few bytes; every table equals the whole-payload one. */
  async function expectSpilledEqualsWhole(bytes: Uint8Array): Promise<void> {
    const whole = await extract(bytes);
    const space = new CountingSpillSpace();
    const run = await runStream(simpleperfProtoAdapter, bytes, {
      chunkSize: 4096,
      spill: space,
      recordBytesInMemory: 256,
    });
    // More than one run was spilled, and every scratch file was deleted.
    expect(space.appends).toBeGreaterThan(1);
    expect(space.open).toBe(0);
    for (const table of ["frames", "frame_measurements", "call_edges"] as const)
      expect(bufferRows(run.evidence.tables[table]!)).toEqual(bufferRows(whole.tables[table]));
    expect(streamedTableRows(run, "stacks")).toEqual(bufferRows(whole.tables.stacks));
    expect(run.evidence.summary).toEqual(whole.summary);
    expect(run.evidence.limitations).toEqual(whole.limitations);
  }

  test(
    "samples spilled past a tiny memory budget are read back in order: the rows of the " +
      "whole-payload path",
    async () => {
      const chains = [
        [
          { file: 0, symbol: 0 },
          { file: 1, symbol: 0, execution: 2 },
          { file: 1, symbol: 1 },
        ],
        [
          { file: 2, symbol: 0 },
          { file: 0, symbol: -1 },
          { file: 0, symbol: 1 },
        ],
        [
          { file: 1, symbol: 1 },
          { file: 0, symbol: 1 },
        ],
        [],
      ];
      const samples = Array.from({ length: 600 }, (_, i) => ({
        time: 1_869_019_844_661n + BigInt(i * 250_013),
        tid: 10 + (i % 3),
        event: i % 5 === 0 ? 1 : 0,
        count: 1000 + i,
        chain: chains[i % chains.length]!,
      }));
      await expectSpilledEqualsWhole(
        writeSimpleperf({
          meta: { events: ["cpu-clock", "cpu-cycles"], app: "com.example" },
          samples,
          threads: [
            { tid: 10, pid: 10, name: "example" },
            { tid: 11, pid: 10, name: "worker" },
          ],
          files: [LIBC, APP, KERNEL],
        }),
      );
    },
  );

  for (const file of files)
    test(
      `${file.name}: samples spilled past a tiny memory budget give the rows of the ` +
        `whole-payload path`,
      async () => {
        await expectSpilledEqualsWhole(loadPayload(file.path));
      },
    );

  test("without meta info events are unnamed: samples are counted, not weighted", async () => {
    const evidence = await extract(
      writeSimpleperf({
        samples: [{ tid: 1, event: 0, count: 1000, chain: [{ file: 0, symbol: 0 }] }],
        files: [LIBC],
        end: false,
      }),
    );
    expect(evidence.summary.metrics).toBe("samples");
    expect(sorted(selfByFunction(evidence, "samples").values)).toEqual([["memcpy", 1]]);
  });

  test("unwinding errors are counted", async () => {
    const evidence = await extract(
      writeSimpleperf({
        meta: { events: ["cpu-clock"] },
        samples: [{ tid: 1, event: 0, count: 10, chain: [{ file: 0, symbol: 0 }], unwindError: 2 }],
        files: [LIBC],
      }),
    );
    expect(evidence.limitations.find((l) => l.code === "incomplete_callchains")?.count).toBe(1);
  });

  test(
    "refusals: magic, cut-off records, trailing data, unknown files and symbols, " + "sample limit",
    async () => {
      expect((await failure(new TextEncoder().encode("SIMPLEPERX\u0001\u0000"))).message).toContain(
        "magic",
      );
      expect((await failure(twoEvents.subarray(0, 8))).message).toContain("header");
      expect((await failure(twoEvents.subarray(0, 40))).message).toContain("cut off");
      expect((await failure(Buffer.concat([twoEvents, new Uint8Array([1])]))).message).toContain(
        "follows the end record",
      );
      const noFile = writeSimpleperf({
        meta: { events: ["cpu-clock"] },
        samples: [{ tid: 1, event: 0, count: 1, chain: [{ file: 3, symbol: 0 }] }],
        files: [LIBC],
      });
      expect((await failure(noFile)).message).toContain("file 3");
      const badSymbol = writeSimpleperf({
        meta: { events: ["cpu-clock"] },
        samples: [{ tid: 1, event: 0, count: 1, chain: [{ file: 0, symbol: 9 }] }],
        files: [LIBC],
      });
      expect((await failure(badSymbol)).message).toContain("symbol 9");
      const garbled = Buffer.from(twoEvents);
      garbled[17] = 0xff; // inside the first record's body: a length that runs past it
      expect((await failure(garbled)).code).toBe("ARTIFACT_PARSE_FAILED");
      try {
        await extract(twoEvents, 2);
        throw new Error("expected ARTIFACT_TOO_LARGE");
      } catch (error) {
        expect((error as FlameoxError).code).toBe("ARTIFACT_TOO_LARGE");
      }
    },
  );

  test("detection: the magic and a binary version; not a text file starting with the word", () => {
    const detect = (bytes: Uint8Array) =>
      simpleperfProtoAdapter.detect({
        head: new TextDecoder().decode(bytes),
        headBytes: bytes,
        displayName: "x",
      });
    expect(detect(twoEvents.subarray(0, 64))).toBe(0.95);
    expect(detect(new TextEncoder().encode("SIMPLEPERF report\n"))).toBe(0);
    expect(detect(new TextEncoder().encode("SIMPLE"))).toBe(0);
  });
});

describe("simpleperf protobuf through import and hotspots", () => {
  let ws: { root: string; cleanup: () => void };
  let service: WorkspaceService;
  beforeAll(async () => {
    ws = await tempWorkspace();
    service = await WorkspaceService.open({ workspace: ws.root });
  }, 60_000);
  afterAll(() => {
    service?.close();
    ws?.cleanup();
  });

  test("a gzipped file is detected, decompressed by the worker, and its hotspots lead with the " +
    "hot function", async () => {
    const hot = {
      tid: 7,
      event: 0,
      count: 250_000,
      chain: [
        { file: 0, symbol: 0 },
        { file: 0, symbol: 1 },
      ],
    };
    const cold = { tid: 7, event: 0, count: 250_000, chain: [{ file: 0, symbol: 1 }] };
    const bytes = writeSimpleperf({
      meta: { events: ["cpu-clock"] },
      samples: [hot, hot, hot, cold],
      threads: [{ tid: 7, pid: 7, name: "app" }],
      files: [LIBC],
    });
    const path = join(ws.root, "perf.trace.gz");
    writeFileSync(path, gzipSync(bytes));
    const imported = await service.importArtifact({ path });
    const hotspots = await service.analyzeHotspots(imported.artifact_id, { limit: 2 });
    expect([hotspots.metric, hotspots.items.map((i) => [i.function, i.self_value])]).toEqual([
      "cpu_time",
      [
        ["memcpy", 750_000],
        ["__start_thread", 250_000],
      ],
    ]);
  }, 60_000);
});
