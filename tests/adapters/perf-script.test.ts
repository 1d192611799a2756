/**
 * perf script text: every corpus file and every recorded fixture (perf 6.1 here: a forking
 * C program with two software events, with and without -F, --header, -G, srcline) imports,
 * and per-function self samples and values equal an independent reading of the raw text
 * (reference-perf-script.ts). Both extraction paths give the same rows, also when the
 * stack trie spills.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { perfScriptAdapter } from "../../src/adapters/perf-script/adapter.ts";
import { MemorySpillSpace } from "../../src/adapters/trace-events/memory-spill.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { REPO } from "../helpers.ts";
import { corpusFiles, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { referencePerfScript, type ReferenceEvent } from "./reference-perf-script.ts";
import { chunksWithNewNames, retainedAfterInput } from "./retained-input.ts";
import { runStream, streamedTableRows } from "./stream-harness.ts";
import { extracted } from "./adapter-harness.ts";

const FIXTURES = join(REPO, "fixtures", "perf-script");
const fixtures = readdirSync(FIXTURES)
  .filter((n) => n.endsWith(".perf.txt"))
  .sort()
  .map((name) => ({ name, path: join(FIXTURES, name) }));
// simpleperf's report_sample.py text is perf script text, tab-separated.
const files = [
  ...corpusFiles("perf-script"),
  ...corpusFiles("simpleperf").filter((f) => f.name.includes(".txt")),
  ...fixtures,
];
const enc = (s: string) => new TextEncoder().encode(s);
const extract = async (bytes: Uint8Array, maxEvents = DEFAULT_ADAPTER_LIMITS.maxEvents) =>
  await extracted(perfScriptAdapter, {
    bytes,
    displayName: "t",
    limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents },
  });

/** The metric each event should land in, and only the first event per metric. */
function expectedMetrics(events: ReferenceEvent[]): Map<string, ReferenceEvent> {
  const out = new Map<string, ReferenceEvent>();
  for (const e of events) {
    const base = e.event.replace(/:[a-zA-Z]+$/, "");
    const metric = !e.hasPeriod
      ? "samples"
      : base === "cpu-clock" || base === "task-clock"
        ? "cpu_time"
        : base === "cycles" || base === "cpu-cycles"
          ? "cycles"
          : base === "instructions"
            ? "instructions"
            : "samples";
    if (!out.has(metric)) out.set(metric, e);
  }
  return out;
}

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

describe("perf-script adapter", () => {
  for (const file of files) {
    test(
      `${file.name}: detected, and self samples ` + `per function equal an independent count`,
      async () => {
        const bytes = loadPayload(file.path);
        expect(
          perfScriptAdapter.detect({ head: headOf(bytes), displayName: "upload" }),
        ).toBeGreaterThan(0.5);
        const evidence = await extract(bytes);
        const expected = expectedMetrics(referencePerfScript(new TextDecoder().decode(bytes)));
        expect(expected.size).toBeGreaterThan(0);
        const metrics = String(evidence.summary.metrics).split(",").filter(Boolean).sort();
        expect(metrics).toEqual([...expected.keys()].sort());
        for (const [metric, ref] of expected) {
          const got = selfByFunction(evidence, metric);
          expect([file.name, metric, sorted(got.samples)]).toEqual([
            file.name,
            metric,
            sorted(ref.selfSamples),
          ]);
          expect(sorted(got.values)).toEqual(
            sorted(metric === "samples" ? ref.selfSamples : ref.selfPeriod),
          );
        }
      },
    );
  }

  test(
    "streaming (chunks of 61 bytes, stacks spilled every 8 stacks) gives the rows of the " +
      "whole-payload path",
    async () => {
      for (const file of fixtures.filter((f) => /node-perf|fork-two/.test(f.name))) {
        const bytes = loadPayload(file.path);
        const whole = await extract(bytes);
        const run = await runStream(perfScriptAdapter, bytes, {
          chunkSize: 61,
          spill: new MemorySpillSpace(),
          maxStacksInMemory: 8,
        });
        const key = (r: Record<string, unknown>) => JSON.stringify(r);
        const wholeStacks = rowsOf(whole.tables.stacks).map((r) => ({
          ...r,
          sample_count: String(r.sample_count),
          duration_ns: String(r.duration_ns),
          first_ts_ns: r.first_ts_ns === null ? null : String(r.first_ts_ns),
        }));
        expect(streamedTableRows(run, "stacks").map(key).sort()).toEqual(
          wholeStacks.map(key).sort(),
        );
        expect(rowsOf(run.evidence.tables.frame_measurements!).map(key).sort()).toEqual(
          rowsOf(whole.tables.frame_measurements).map(key).sort(),
        );
        expect(run.evidence.summary).toEqual(whole.summary);
      }
    },
  );

  test(
    "a forking program: one track per thread, named by its command; the second clock event is " +
      "declared, not added",
    async () => {
      const evidence = await extract(readFileSync(join(FIXTURES, "fork-two-events.perf.txt")));
      const tracks = new Set(
        rowsOf(evidence.tables.frame_measurements).map((m) => `${m.track_id}|${m.thread_name}`),
      );
      expect(tracks.size).toBe(2);
      for (const t of tracks) expect(t).toMatch(/^tid:\d+\|hot$/);
      expect(evidence.limitations.find((l) => l.code === "event_not_imported")?.message).toContain(
        "task-clock",
      );
      expect(evidence.summary.sample_span_ns).toBeGreaterThan(0);
      const stacks = rowsOf(evidence.tables.stacks);
      expect(
        stacks.every((s) => typeof s.first_ts_ns === "bigint" || typeof s.first_ts_ns === "number"),
      ).toBe(true);
    },
  );

  test("times past 2^53 ns (a host up for 325 days) are kept exactly", async () => {
    const evidence = await extract(
      enc(
        "a 7 28075374.517811: 10 cpu-clock:\n\t 1 f (/x)\n\na 7 28075374.517812: 10 " +
          "cpu-clock:\n\t 1 g (/x)\n\n",
      ),
    );
    expect(
      rowsOf(evidence.tables.stacks)
        .map((s) => s.first_ts_ns)
        .sort(),
    ).toEqual([28075374517811000n, 28075374517812000n]);
    expect(evidence.summary.sample_span_ns).toBe(1000);
  });

  test("pid/tid headers name a thread's process after its main thread", async () => {
    const evidence = await extract(readFileSync(join(FIXTURES, "fork-one-line.perf.txt")));
    for (const m of rowsOf(evidence.tables.frame_measurements)) {
      expect(m.track_id).toMatch(/^(\d+):\1$/);
      expect(m.process_name).toBe("hot");
    }
  });

  const simpleperf = corpusFiles("simpleperf").find((f) => f.name.includes(".txt"));
  test.skipIf(!simpleperf)(
    "simpleperf's report_sample.py text is recorded as simpleperf's (external corpus)",
    async () => {
      const evidence = await extract(loadPayload(simpleperf!.path));
      expect(evidence.producer).toBe("simpleperf");
      expect(evidence.summary.threads).toBeGreaterThan(1);
    },
  );

  test(
    "simpleperf's file[+offset] names of unsymbolized addresses are one [unknown] frame per " +
      "file",
    async () => {
      const sample = (addr: string, leaf: string) =>
        `app\t7 [001] 10.000001:\t\t1000000 task-clock:u:\n        ${addr}\t${leaf}\n        ` +
        `b3cea535\tmain (/system/bin/app)\n\n`;
      const text =
        sample("9a3a607f", "base.odex[+41107f] (/data/app/x/oat/arm/base.odex)") +
        sample("9a3a6080", "base.odex[+411080] (/data/app/x/oat/arm/base.odex)") +
        sample("1", "other[+10] (/system/lib/libc.so)");
      const evidence = await extract(enc(text));
      const frames = rowsOf(evidence.tables.frames)
        .map((f) => `${f.function}|${f.module}`)
        .sort();
      expect(frames).toEqual([
        "[unknown]|/data/app/x/oat/arm/base.odex",
        "main|/system/bin/app",
        "other[+10]|/system/lib/libc.so",
      ]);
      expect(evidence.limitations.find((l) => l.code === "unknown_frames")?.count).toBe(2);
    },
  );

  test("frames met chunk after chunk keep nothing of the chunks they were read from", async () => {
    // Each 1 MiB chunk brings one new frame; the rest repeats a known one (kept substrings held 1
    // MiB a chunk).
    const filler =
      `app 7 [000] 1.000001: 1000 ` +
      `cpu-clock:\n\t1000 ${"known_function_with_a_long_name".repeat(8)}+0x1 (/usr/bin/app)\n\n`;
    const chunks = chunksWithNewNames(
      24,
      (i) => `app 7 [000] 1.000001: 1000 cpu-clock:\n\t1000 fresh_${i}+0x1 (/usr/bin/app)\n\n`,
      filler,
    );
    const { inputBytes, retainedBytes } = await retainedAfterInput(perfScriptAdapter, chunks);
    expect(retainedBytes).toBeLessThan(inputBytes / 4);
  });

  test("--header: perf's version is the producer version; host lines are not kept", async () => {
    const evidence = await extract(readFileSync(join(FIXTURES, "fork-header.perf.txt")));
    expect(evidence).toMatchObject({ producer: "perf", producerVersion: "6.1.187" });
    expect(evidence.summary.header_lines).toBeGreaterThan(10);
  });

  test("srcline lines give frames their file and line", async () => {
    const evidence = await extract(readFileSync(join(FIXTURES, "fork-srcline.perf.txt")));
    const spin = rowsOf(evidence.tables.frames).filter((f) => f.function === "spin");
    expect(spin.length).toBeGreaterThan(0);
    for (const f of spin) expect([f.file, typeof f.line]).toEqual(["hot.c", "number"]);
  });

  test(
    "V8 --perf-basic-prof frames are JavaScript with file, line and column; kernel frames are " +
      "kernel",
    async () => {
      const evidence = await extract(readFileSync(join(FIXTURES, "node-perf-basic-prof.perf.txt")));
      const burn = rowsOf(evidence.tables.frames).filter((f) => f.function === "burnHotspot");
      expect(burn).toEqual([
        expect.objectContaining({
          language: "javascript",
          file: "file:///app/workloads/hot.js",
          line: 4,
          column: 21,
          module: null,
        }),
      ]);
      expect(evidence.limitations.map((l) => l.code)).not.toContain("unnamed_jit_frames");
      expect(
        rowsOf(evidence.tables.frames).some(
          (f) => f.language === "kernel" && f.module === "[kernel.kallsyms]",
        ),
      ).toBe(true);
    },
  );

  test("JIT frames their perf map does not name are counted as unnamed_jit_frames", async () => {
    const evidence = await extract(
      readFileSync(join(FIXTURES, "node-truncated-perf-map.perf.txt")),
    );
    expect(
      evidence.limitations.find((l) => l.code === "unnamed_jit_frames")?.count,
    ).toBeGreaterThan(0);
    expect(
      rowsOf(evidence.tables.frames).filter(
        (f) => f.language === "jit" && f.function === "[unknown]",
      ),
    ).toEqual([expect.objectContaining({ module: "[jit]", symbolization: "absent" })]);
  });

  test("bad input ends in typed errors", async () => {
    const code = async (bytes: Uint8Array, maxEvents?: number) => {
      try {
        await runStream(perfScriptAdapter, bytes, { limits: maxEvents ? { maxEvents } : {} });
        return "ok";
      } catch (error) {
        return error instanceof FlameoxError ? error.code : String(error);
      }
    };
    expect(await code(enc("hello world\nthis is not perf\n"))).toBe("ARTIFACT_PARSE_FAILED");
    expect(await code(new Uint8Array(5 << 20).fill(0x41))).toBe("ARTIFACT_PARSE_FAILED");
    expect(await code(readFileSync(join(FIXTURES, "fork-two-events.perf.txt")), 10)).toBe(
      "ARTIFACT_TOO_LARGE",
    );
    // Periods that cannot be summed exactly in int64 columns: no sample header, or too large in
    // total.
    const huge = await extract(
      enc(
        "a 1 2.000001: 10 cpu-clock:\n\t 1 f (/x)\n\na 1 2.000002: 99999999999999999999 " +
          "cpu-clock:\n\t 1 f (/x)\n\n",
      ),
    );
    expect(huge.summary.samples).toBe(1);
    expect(
      await code(
        enc(
          "a 1 2.000001: 9007199254740991 cpu-clock:\n\t 1 f (/x)\n\na 1 2.000002: " +
            "9007199254740991 cpu-clock:\n\t 1 f (/x)\n",
        ),
      ),
    ).toBe("ARTIFACT_TOO_LARGE");
    const empty = await extract(new Uint8Array(0));
    expect(empty.limitations.map((l) => l.code)).toContain("no_samples");
    // A sample whose callchain is cut off still counts; lines that fit nothing are counted.
    const cut = await extract(enc("a 1 2.000001: 10 cpu-clock:\n\t 1 f (/x)\n@@@\n"));
    expect(cut.limitations.find((l) => l.code === "invalid_lines")?.count).toBe(1);
  });
});
