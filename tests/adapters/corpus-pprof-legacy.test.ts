/**
 * pprof-legacy: the real legacy files of the corpus import with values that equal
 * computations done here from the raw text and bytes (not from the adapter's own
 * parse): heap totals after heapz_v2 rescaling, contention counts and delays after the
 * sampling period and cycles→ns conversion, binary CPU leaf counts, Java names from the
 * symbol section, modules from the memory map. Detection claims exactly the legacy
 * files, and malformed or hostile inputs end in typed errors.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS, type AdapterLimits } from "../../src/adapters/adapter.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { FlameoxError, type ErrorCode } from "../../src/domain/errors.ts";
import type { NormalizedEvidence } from "../../src/domain/normalized-evidence.ts";
import { mutatedInputs } from "../fuzz/mutations.ts";
import { corpusFiles, corpusFormats, headOf, loadPayload } from "./corpus-files.ts";
import { rowsOf } from "./evidence-checks.ts";
import { extracted } from "./adapter-harness.ts";

const legacy = adapterByName("pprof-legacy")!;
const LEGACY = "pprof-legacy";

function fileBytes(name: string): Uint8Array {
  return loadPayload(corpusFiles(LEGACY).find((f) => f.name === name)!.path);
}
const textOf = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function extract(
  bytes: Uint8Array,
  limits: Partial<AdapterLimits> = {},
): Promise<NormalizedEvidence> {
  return await extracted(legacy, {
    bytes,
    displayName: "case",
    limits: { ...DEFAULT_ADAPTER_LIMITS, ...limits },
  });
}

async function expectFailure(
  bytes: Uint8Array,
  code: ErrorCode,
  limits: Partial<AdapterLimits> = {},
): Promise<string> {
  try {
    await extract(bytes, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    expect((error as FlameoxError).code).toBe(code);
    return (error as FlameoxError).message;
  }
  throw new Error("extraction succeeded but was expected to fail");
}

/** Self value per frame function name for one metric, summed over rows. */
function selfByName(evidence: NormalizedEvidence, metric: string): Map<string, number> {
  const frames = new Map(rowsOf(evidence.tables.frames).map((f) => [f.frame_id, f]));
  const out = new Map<string, number>();
  for (const m of rowsOf(evidence.tables.frame_measurements)) {
    if (m.metric !== metric || Number(m.self_value) === 0) continue;
    const name = frames.get(m.frame_id)!.function as string;
    out.set(name, (out.get(name) ?? 0) + Number(m.self_value));
  }
  return out;
}

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const hex = (a: bigint) => `0x${a.toString(16)}`;
function add<K>(map: Map<K, number>, key: K, value: number): void {
  if (value !== 0) map.set(key, (map.get(key) ?? 0) + value);
}

/** A text profile's sample lines: the numbers before `@` and the addresses after it. */
function textSamples(text: string, numbers: RegExp): { numbers: number[]; addresses: bigint[] }[] {
  const body = text.split("--- Memory map: ---")[0]!.split("\n").slice(1);
  return body
    .filter((l) => numbers.test(l))
    .map((l) => ({
      numbers: numbers.exec(l)!.slice(1).map(Number),
      addresses: (l.split("@")[1]!.match(/0x[0-9a-f]+/g) ?? []).map((h) => BigInt(h)),
    }));
}

/**
 * Frame names expected for heap and contention text stacks: every address one byte back
 * (a return address, the leaf included, lands on its call), as pprof's parseHeap and
 * parseContention do.
 */
function expectedFrameNames(samples: { addresses: bigint[] }[]): Set<string> {
  return new Set(samples.flatMap((s) => s.addresses.map((a) => hex(a - 1n))));
}

/** `start-limit: file` lines of a text memory map, with `name=value` substitutions applied. */
function briefMap(text: string): { start: bigint; limit: bigint; file: string }[] {
  const vars: [string, string][] = [];
  const out: { start: bigint; limit: bigint; file: string }[] = [];
  for (const raw of text.split("--- Memory map: ---")[1]!.split("\n")) {
    let line = raw.trim();
    for (const [k, v] of vars) line = line.split(k).join(v);
    const m = /^([0-9a-f]+)-([0-9a-f]+): (\S+)$/.exec(line);
    if (m) out.push({ start: BigInt("0x" + m[1]), limit: BigInt("0x" + m[2]), file: m[3]! });
    else if (line.includes("="))
      vars.push(["$" + line.split("=")[0]!.trim(), line.split("=")[1]!.trim()]);
  }
  return out;
}

/** Every address frame lies in the map line that contains it, and is named after it. */
function expectModulesFromMap(evidence: NormalizedEvidence, text: string): void {
  const map = briefMap(text);
  expect(map.length).toBeGreaterThan(0);
  for (const f of rowsOf(evidence.tables.frames)) {
    const address = BigInt(f.function as string);
    expect([f.function, f.module]).toEqual([
      f.function,
      map.find((m) => m.start <= address && address < m.limit)?.file ?? null,
    ]);
  }
}

describe("pprof-legacy detection", () => {
  test(
    "every legacy corpus file is detected as pprof-legacy (with and without the raw " +
      "head bytes)",
    () => {
      const files = corpusFiles(LEGACY);
      expect(files.length).toBe(4);
      for (const file of files) {
        const bytes = loadPayload(file.path);
        expect([
          file.name,
          detectAdapter({
            head: headOf(bytes),
            headBytes: bytes.subarray(0, 65536),
            displayName: file.name,
          })?.name,
        ]).toEqual([file.name, LEGACY]);
        expect([
          file.name,
          detectAdapter({ head: headOf(bytes), displayName: "upload" })?.name,
        ]).toEqual([file.name, LEGACY]);
      }
    },
  );

  test(
    "no file of another corpus format (pprof, collapsed stacks, …) is taken for legacy " + "pprof",
    () => {
      const formats = corpusFormats().filter((f) => f !== LEGACY);
      expect(formats).toContain("pprof");
      expect(formats).toContain("collapsed-stacks");
      const claimed: string[] = [];
      for (const format of formats) {
        for (const file of corpusFiles(format)) {
          let bytes = loadPayload(file.path);
          if (bytes[0] === 0x1f && bytes[1] === 0x8b)
            bytes = Bun.gunzipSync(bytes as Uint8Array<ArrayBuffer>);
          if (
            legacy.detect({
              head: headOf(bytes),
              headBytes: bytes.subarray(0, 65536),
              displayName: file.name,
            }) > 0
          )
            claimed.push(`${format}/${file.name}`);
        }
      }
      expect(claimed).toEqual([]);
    },
  );
});

describe("pprof-legacy corpus", () => {
  test(
    "heapz_v2 heap: in-use totals and per-leaf values equal the rescaled counts of the " + "text",
    async () => {
      const bytes = fileBytes("google-pprof-cppbench.heap");
      const text = textOf(bytes);
      const rate = Number(/@ heapz_v2\/(\d+)/.exec(text.split("\n")[0]!)![1]);
      const samples = textSamples(text, /^\s*(\d+):\s*(\d+)\s*\[\s*\d+:\s*\d+\s*\]/);
      expect(samples.length).toBe(31);
      // Each row estimates count/p allocations of size/p bytes, p = 1 - exp(-(size/count)/rate).
      const objects = new Map<string, number>();
      const space = new Map<string, number>();
      for (const {
        numbers: [count, size],
        addresses,
      } of samples) {
        const p = 1 - Math.exp(-(size! / count!) / rate);
        add(objects, hex(addresses[0]! - 1n), Math.trunc(count! / p));
        add(space, hex(addresses[0]! - 1n), Math.trunc(size! / p));
      }
      const evidence = await extract(bytes);
      expect(evidence.summary.samples).toBe(31);
      expect(evidence.summary.sample_types).toBe("inuse_objects/count,inuse_space/bytes");
      expect(selfByName(evidence, "inuse_objects")).toEqual(objects);
      expect(selfByName(evidence, "inuse_space")).toEqual(space);
      // The sum of the space column of pprof's own parse (google/pprof
      // profile/testdata/cppbench.heap.string).
      expect(sum(space.values())).toBe(80_935_293);
      expect(new Set(rowsOf(evidence.tables.frames).map((f) => f.function))).toEqual(
        expectedFrameNames(samples),
      );
      expectModulesFromMap(evidence, text);
      expect(evidence.limitations.map((l) => l.code)).toContain("heap_types_renamed");
    },
  );

  test(
    "contention: counts × sampling period and delay cycles → ns equal the text's " + "columns",
    async () => {
      const bytes = fileBytes("google-pprof-cppbench.contention");
      const text = textOf(bytes);
      const hz = Number(/cycles\/second = (\d+)/.exec(text)![1]);
      const period = Number(/sampling period = (\d+)/.exec(text)![1]);
      const samples = textSamples(text, /^\s*(\d+)\s+(\d+) @/);
      expect(samples.length).toBe(6);
      const contentions = new Map<string, number>();
      const delay = new Map<string, number>();
      for (const {
        numbers: [cycles, count],
        addresses,
      } of samples) {
        add(contentions, hex(addresses[0]! - 1n), count! * period);
        add(delay, hex(addresses[0]! - 1n), Math.trunc((cycles! * period) / (hz / 1e9)));
      }
      const evidence = await extract(bytes);
      expect(evidence.summary.samples).toBe(6);
      expect(selfByName(evidence, "contentions")).toEqual(contentions);
      expect(selfByName(evidence, "delay")).toEqual(delay);
      // Both sums equal the columns of pprof's own parse
      // (profile/testdata/cppbench.contention.string).
      expect(sum(contentions.values())).toBe(3500);
      expect(sum(delay.values())).toBe(690_508_213);
      expect(evidence.summary.duration_ns).toBe(
        Number(/ms since reset = (\d+)/.exec(text)![1]) * 1e6,
      );
      expect(new Set(rowsOf(evidence.tables.frames).map((f) => f.function))).toEqual(
        expectedFrameNames(samples),
      );
      expectModulesFromMap(evidence, text);
    },
  );

  /** Records of a binary CPU profile in 64-bit little-endian words, read here directly. */
  function binaryRecords(
    bytes: Uint8Array,
    size: 4 | 8,
  ): { header: bigint[]; records: { count: number; pcs: bigint[] }[]; rest: Uint8Array } {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const word = (i: number) =>
      size === 8 ? view.getBigUint64(i, true) : BigInt(view.getUint32(i, true));
    const header = [0, 1, 2, 3, 4].map((i) => word(i * size));
    const records: { count: number; pcs: bigint[] }[] = [];
    let at = 5 * size;
    for (;;) {
      const count = Number(word(at));
      const n = Number(word(at + size));
      const pcs = Array.from({ length: n }, (_, i) => word(at + (2 + i) * size));
      at += (2 + n) * size;
      if (count === 0 && n === 1 && pcs[0] === 0n) break;
      records.push({ count, pcs });
    }
    return { header, records, rest: bytes.subarray(at) };
  }

  test(
    "Go binary CPU: leaf addresses and their sample counts and CPU time equal the " + "records",
    async () => {
      const bytes = fileBytes("google-pprof-go.crc32.cpu");
      const { header, records, rest } = binaryRecords(bytes, 8);
      expect(header.slice(0, 3)).toEqual([0n, 3n, 0n]);
      expect(rest.length).toBe(0); // no memory map in this file
      const periodNs = Number(header[3]) * 1000;
      const samples = new Map<string, number>();
      const cpu = new Map<string, number>();
      for (const r of records) {
        add(samples, hex(r.pcs[0]!), r.count);
        add(cpu, hex(r.pcs[0]!), r.count * periodNs);
      }
      const evidence = await extract(bytes);
      expect(evidence.summary.samples).toBe(records.length);
      expect(selfByName(evidence, "samples")).toEqual(samples);
      expect(selfByName(evidence, "cpu_time")).toEqual(cpu);
      expect(sum(samples.values())).toBe(211);
      // Callers are named one byte back, on the call instruction.
      const names = new Set(rowsOf(evidence.tables.frames).map((f) => f.function as string));
      const outermost = new Set(records.map((r) => hex(r.pcs[r.pcs.length - 1]! - 1n)));
      for (const name of outermost) expect(names).toContain(name);
      // Frames found second (then third) in every record were pushed by the signal handler:
      // dropped.
      for (const depth of [1, 2]) {
        const common = records[0]!.pcs[depth]!;
        expect(records.every((r) => r.pcs[depth] === common)).toBe(true);
        expect(names.has(hex(common - 1n))).toBe(false);
      }
    },
  );

  test(
    "Java binary CPU: leaf functions and " + "their counts come from the symbol section",
    async () => {
      const bytes = fileBytes("google-pprof-java.cpu");
      const { header, records, rest } = binaryRecords(bytes, 4);
      expect(header.slice(0, 3)).toEqual([0n, 3n, 1n]);
      const names = new Map<bigint, string>();
      for (const line of textOf(rest).split("\n")) {
        const m = /^\s*0x([0-9a-f]+) (\S+)/.exec(line);
        if (m) names.set(BigInt("0x" + m[1]), m[2]!);
      }
      expect(names.size).toBeGreaterThan(60);
      const periodNs = Number(header[3]) * 1000;
      const samples = new Map<string, number>();
      const cpu = new Map<string, number>();
      for (const r of records) {
        add(samples, names.get(r.pcs[0]!)!, r.count);
        add(cpu, names.get(r.pcs[0]!)!, r.count * periodNs);
      }
      const evidence = await extract(bytes);
      expect(evidence.summary.samples).toBe(records.length);
      expect(selfByName(evidence, "samples")).toEqual(samples);
      expect(selfByName(evidence, "cpu_time")).toEqual(cpu);
      const frames = rowsOf(evidence.tables.frames);
      // Every frame of every record is a named function (Java method ids are not adjusted).
      expect(new Set(frames.map((f) => f.function))).toEqual(
        new Set(records.flatMap((r) => r.pcs.map((pc) => names.get(pc)!))),
      );
      for (const f of frames.filter((f) => (f.function as string).startsWith("com.example."))) {
        expect([f.function, f.file, f.language, f.symbolization]).toEqual([
          f.function,
          "source.java",
          "java",
          "complete",
        ]);
      }
      expect(frames.find((f) => f.function === "com.example.function06")!.line).toBe(6);
    },
  );
});

describe("pprof-legacy forms built here", () => {
  /** A binary CPU profile in any word size and byte order, with a trailer and `maps` text. */
  function cpuProfile(
    size: 4 | 8,
    little: boolean,
    periodMicros: number,
    records: [number, number[]][],
    maps = "",
  ): Uint8Array {
    const words = [
      0,
      3,
      0,
      periodMicros,
      0,
      ...records.flatMap(([count, pcs]) => [count, pcs.length, ...pcs]),
      0,
      1,
      0,
    ];
    const out = new Uint8Array(words.length * size);
    const view = new DataView(out.buffer);
    words.forEach((w, i) =>
      size === 4
        ? view.setUint32(i * size, w, little)
        : view.setBigUint64(i * size, BigInt(w), little),
    );
    const text = new TextEncoder().encode(maps);
    const all = new Uint8Array(out.length + text.length);
    all.set(out);
    all.set(text, out.length);
    return all;
  }

  const MAPS =
    [
      "00400000-00452000 r-xp 00000000 08:01 12345 /usr/bin/app",
      "00651000-00652000 rw-p 00051000 08:01 12345 /usr/bin/app",
      "7f0000000000-7f0000100000 r-xp 00000000 08:01 777 /lib/libc.so.6",
    ].join("\n") + "\n";
  // Leaves differ and no caller is common to every stack, so the signal-frame heuristics leave them
  // alone.
  const RECORDS: [number, number[]][] = [
    [3, [0x401000, 0x7f0000000100, 0x402001]],
    [2, [0x401234, 0x402001]],
    [1, [0x7f0000000200, 0x403001]],
  ];

  for (const [size, little] of [
    [4, true],
    [4, false],
    [8, true],
    [8, false],
  ] as const) {
    test(
      `binary CPU in ${size * 8}-bit ${little ? "little" : "big"}-endian words, with a ` +
        `/proc/self/maps section`,
      async () => {
        const bytes = cpuProfile(
          size,
          little,
          2500,
          size === 4 ? RECORDS.map(([c, pcs]) => [c, pcs.map((pc) => pc % 2 ** 32)]) : RECORDS,
          MAPS,
        );
        expect(
          detectAdapter({
            head: headOf(bytes),
            headBytes: bytes.subarray(0, 65536),
            displayName: "x",
          })?.name,
        ).toBe(LEGACY);
        const evidence = await extract(bytes);
        const period = 2500 * 1000;
        const leaf = (pc: number) => hex(BigInt(size === 4 ? pc % 2 ** 32 : pc));
        expect(selfByName(evidence, "cpu_time")).toEqual(
          new Map(RECORDS.map(([c, pcs]) => [leaf(pcs[0]!), c * period])),
        );
        if (size === 8) {
          const modules = new Map(
            rowsOf(evidence.tables.frames).map((f) => [f.function, f.module]),
          );
          expect(modules.get("0x401000")).toBe("/usr/bin/app");
          expect(modules.get("0x402000")).toBe("/usr/bin/app"); // 0x402001 - 1
          expect(modules.get("0x7f00000000ff")).toBe("/lib/libc.so.6");
          expect(modules.get("0x7f0000000200")).toBe("/lib/libc.so.6");
        }
      },
    );
  }

  test("heap_v2 with allocation totals: four sample types, each pair rescaled", async () => {
    const text = [
      "heap profile:    2:   4096 [    5:  10240] @ heap_v2/524288",
      "     1:     2048 [     3:     6144] @ 0x1000 0x2001",
      "     1:     2048 [     2:     4096] @ 0x3000 0x2001",
      "",
    ].join("\n");
    const evidence = await extract(new TextEncoder().encode(text));
    expect(evidence.summary.sample_types).toBe(
      "alloc_objects/count,alloc_space/bytes,inuse_objects/count,inuse_space/bytes",
    );
    const scaled = (count: number, size: number) => {
      const p = 1 - Math.exp(-(size / count) / 524288);
      return [Math.trunc(count / p), Math.trunc(size / p)] as const;
    };
    // Leaves one byte back, like every heap address (pprof's parseHeap).
    expect(selfByName(evidence, "alloc_space")).toEqual(
      new Map([
        ["0xfff", scaled(3, 6144)[1]],
        ["0x2fff", scaled(2, 4096)[1]],
      ]),
    );
    expect(selfByName(evidence, "inuse_objects")).toEqual(
      new Map([
        ["0xfff", scaled(1, 2048)[0]],
        ["0x2fff", scaled(1, 2048)[0]],
      ]),
    );
    expect(evidence.limitations.map((l) => l.code)).not.toContain("heap_types_renamed");
  });

  test("heapprofile (every allocation recorded) is not rescaled", async () => {
    const text =
      "heap profile:    1:   100 [    1:   100] @ heapprofile\n     1:     100 [     1:     " +
      "100] @ 0x10 0x21\n";
    const evidence = await extract(new TextEncoder().encode(text));
    expect(selfByName(evidence, "inuse_space")).toEqual(new Map([["0xf", 100]]));
  });

  test(
    "Java heapz text: size and count columns swapped, rescaled at 512 KiB, names from its " +
      "symbols",
    async () => {
      const text = [
        "--- heapz 1 ---",
        "format = java",
        "resolution = bytes",
        "   4096    2 @ 0x0a 0x0b",
        "    512    1 @ 0x0c 0x0b",
        " 0x0a java.util.Arrays.copyOf (Arrays.java:3181)",
        " 0x0b com.example.Main.run (Main.java:7)",
        " 0x0c com.example.Main.alloc (Main.java:12)",
        "",
      ].join("\n");
      const bytes = new TextEncoder().encode(text);
      expect(detectAdapter({ head: text, headBytes: bytes, displayName: "x" })?.name).toBe(LEGACY);
      const evidence = await extract(bytes);
      const scaled = (count: number, size: number) =>
        Math.trunc(size / (1 - Math.exp(-(size / count) / 524288)));
      expect(selfByName(evidence, "inuse_space")).toEqual(
        new Map([
          ["java.util.Arrays.copyOf", scaled(2, 4096)],
          ["com.example.Main.alloc", scaled(1, 512)],
        ]),
      );
      const run = rowsOf(evidence.tables.frames).find(
        (f) => f.function === "com.example.Main.run",
      )!;
      expect([run.file, run.line, run.language]).toEqual(["Main.java", 7, "java"]);
    },
  );

  test(
    "Java contentionz text goes to the Java reader (its format attribute), values × sampling " +
      "period",
    async () => {
      const text =
        "--- contentionz 1 ---\nformat = java\nresolution = microseconds\nsampling period = " +
        "10\n  300 2 @ 0x1 0x2\n 0x1 a.B.lock (B.java:3)\n 0x2 a.B.run (B.java:9)\n";
      const evidence = await extract(new TextEncoder().encode(text));
      expect(evidence.summary.legacy_form).toBe("java-contention");
      expect(selfByName(evidence, "contentions")).toEqual(new Map([["a.B.lock", 20]]));
      // 300 µs × 10, in ns
      expect(selfByName(evidence, "delay")).toEqual(new Map([["a.B.lock", 3000 * 1000]]));
    },
  );
});

describe("pprof-legacy malformed inputs fail with typed errors", () => {
  const cpu = fileBytes("google-pprof-go.crc32.cpu");
  const enc = (s: string) => new TextEncoder().encode(s);

  test("binary CPU cut inside a record or the trailer", async () => {
    for (const cut of [40 + 3, 40 + 8 + 5, 40 + 16 + 12, (cpu.length >> 1) | 1, cpu.length - 3]) {
      expect(await expectFailure(cpu.subarray(0, cut), "ARTIFACT_PARSE_FAILED")).toContain(
        "Cannot parse legacy pprof profile",
      );
    }
  });

  test(
    "a stack depth past the end of the file is refused before anything is allocated " + "for it",
    async () => {
      const bytes = cpu.slice();
      new DataView(bytes.buffer).setBigUint64(40 + 8, 1n << 40n, true);
      expect(await expectFailure(bytes, "ARTIFACT_PARSE_FAILED")).toContain("past the end");
    },
  );

  test("counts that do not fit exactly", async () => {
    const bytes = cpu.slice();
    new DataView(bytes.buffer).setBigUint64(40, 1n << 60n, true);
    expect(await expectFailure(bytes, "ARTIFACT_PARSE_FAILED")).toContain("too large");
    await expectFailure(
      enc("heap profile: 1: 1 [ 1: 1] @ heapz_v2/524288\n99999999999999999999: 5 [ 1: 1] @ 0x1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(
      enc("--- contention ---\nsampling period = 9007199254740991\n10 10 @ 0x1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(
      enc("heap profile: 1: 1 [ 1: 1] @ heapz_v2/524288\n0: 5 [ 0: 0] @ 0x1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
  });

  test("garbage after a valid header, and payloads that are no legacy profile", async () => {
    await expectFailure(
      enc("heap profile: 1: 1 [ 1: 1] @ heapz_v2/524288\nthis is not a sample\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(
      enc("--- contentionz 1 ---\ncycles/second = 1000\n12 x @ 0x1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(
      enc("--- contentionz 1 ---\nbogus attribute = 1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    // no resolution: no unit
    await expectFailure(
      enc("--- heapz 1 ---\nformat = java\n 1 1 @ 0x1\n"),
      "ARTIFACT_PARSE_FAILED",
    );
    await expectFailure(enc(""), "ARTIFACT_PARSE_FAILED");
    await expectFailure(enc("hello, profiler\n"), "ARTIFACT_PARSE_FAILED");
    await expectFailure(Uint8Array.from([0, 0, 0, 0, 3, 0, 0]), "ARTIFACT_PARSE_FAILED");
  });

  test("more samples than the event limit is ARTIFACT_TOO_LARGE", async () => {
    expect(await expectFailure(cpu, "ARTIFACT_TOO_LARGE", { maxEvents: 10 })).toContain(
      "exceed the limit of 10",
    );
    await expectFailure(fileBytes("google-pprof-cppbench.heap"), "ARTIFACT_TOO_LARGE", {
      maxEvents: 30,
    });
    expect(
      (await extract(fileBytes("google-pprof-cppbench.heap"), { maxEvents: 31 })).summary.samples,
    ).toBe(31);
  });

  // FLAMEOX_FUZZ=full runs the fuzz lane's 10,000 inputs, as for the streaming parsers.
  const FUZZ_INPUTS = process.env.FLAMEOX_FUZZ === "full" ? 10_000 : 300;
  test(
    `${FUZZ_INPUTS} mutated corpus files (truncations, bit flips, insertions…) end in a result ` +
      `or a typed error, none slow`,
    async () => {
      const seeds = corpusFiles(LEGACY).map((f) => loadPayload(f.path));
      const outcomes = new Map<string, number>();
      for (const { name, bytes } of mutatedInputs(seeds, FUZZ_INPUTS, 0x1e9ac)) {
        let outcome = "ok";
        const started = performance.now();
        try {
          await extract(bytes, { maxEvents: 100_000 });
        } catch (error) {
          if (
            !(error instanceof FlameoxError) ||
            !["ARTIFACT_PARSE_FAILED", "ARTIFACT_TOO_LARGE"].includes(error.code)
          ) {
            throw new Error(
              `${name} (${bytes.length} bytes) threw ${(error as Error)?.stack ?? error}`,
            );
          }
          outcome = error.code;
        }
        expect(performance.now() - started).toBeLessThan(2_000);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      console.log(
        `pprof-legacy: ${FUZZ_INPUTS} inputs ` +
          `→ ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(", ")}`,
      );
      expect(outcomes.get("ok")).toBeGreaterThan(0);
      expect(outcomes.get("ARTIFACT_PARSE_FAILED")).toBeGreaterThan(0);
    },
  );
});
