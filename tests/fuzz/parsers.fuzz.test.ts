/**
 * Fuzz lane for the parsers (streaming ones through extractStream, the rest through
 * extract): mutated real inputs (truncations, bit flips, huge lengths, deep nesting,
 * invalid UTF-8, …) must end in a typed error or a normal
 * result: never another exception, never a hang, and without growing this process.
 * The default run is small and deterministic; FLAMEOX_FUZZ=full runs 10,000 per parser.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS, type ProducerAdapter } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { corpusFiles, loadPayload } from "../adapters/corpus-files.ts";
import { smallExport } from "../adapters/nsys-export.ts";
import { chunked } from "../adapters/stream-harness.ts";
import { mutatedInputs } from "./mutations.ts";
import { deflateSync } from "node:zlib";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers.ts";
import { Trace } from "../adapters/reference-perfetto/perfetto-schema.ts";
import { writeSimpleperf } from "../adapters/reference-simpleperf.ts";
import { extracted } from "../adapters/adapter-harness.ts";

const FULL = process.env.FLAMEOX_FUZZ === "full";
const PER_PARSER = FULL ? 10_000 : 120;
/** Any one input must finish within this (a hang would exceed it by far). */
const MAX_INPUT_MS = 10_000;
const TYPED = new Set(["ARTIFACT_PARSE_FAILED", "ARTIFACT_TOO_LARGE"]);

/** Small seeds per parser: the format's smaller corpus files. */
function seeds(formats: string[], maxBytes = 200_000): Uint8Array[] {
  return formats
    .flatMap((f) => corpusFiles(f))
    .map((f) => loadPayload(f.path))
    .map((b) => (b[0] === 0x1f && b[1] === 0x8b ? Bun.gunzipSync(b as Uint8Array<ArrayBuffer>) : b))
    .filter((b) => b.length <= maxBytes);
}

/**
 * Generated seeds for paths the corpus does not reach: OTLP JSON Lines and length-prefixed
 * OTLP requests; a system trace (atrace marks in ftrace print events, thread, async and
 * named-track forms, on the boot and the global ftrace clock; process_tree, process_stats)
 * as it is and inside a compressed packet group; a heapprofd dump.
 */
function generatedSeeds(parser: string): Uint8Array[] {
  // The corpus exports are external (over the vendoring cap); a small export is built instead.
  if (parser === "nsys-sqlite") return [smallExport()];
  if (parser === "nvbench") {
    // The corpus files (~530 KiB) pass the seed cap; the real file cut to its first two
    // benchmarks, two states each (one of them skipped where the benchmark skips one).
    const doc = JSON.parse(
      new TextDecoder().decode(loadPayload(corpusFiles("nvbench")[0]!.path)),
    ) as { benchmarks: { states: { is_skipped?: boolean }[] }[] };
    const small = doc.benchmarks.slice(0, 2).map((b) => ({
      ...b,
      states: [
        ...b.states.slice(0, 1),
        ...b.states.filter((s) => s.is_skipped).slice(0, 1),
        ...b.states.slice(1, 2),
      ],
    }));
    return [new TextEncoder().encode(JSON.stringify({ ...doc, benchmarks: small }, null, 1))];
  }
  if (parser === "otlp-json") {
    // The Collector file exporter's JSON Lines: one request per line.
    const lines = seeds(["otlp-json"]).map((body) =>
      JSON.stringify(JSON.parse(new TextDecoder().decode(body))),
    );
    return [new TextEncoder().encode(lines.join("\n") + "\n")];
  }
  if (parser === "otlp-protobuf") {
    // The Collector file exporter's framing: each request after its 4-byte big-endian length.
    const prefix = (n: number) =>
      Buffer.from([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
    return [Buffer.concat(seeds(["otlp-proto"]).flatMap((body) => [prefix(body.length), body]))];
  }
  if (parser === "simpleperf-proto") {
    // The corpus file is external (MPL-2.0): hand-made files with every record kind but context
    // switches.
    const files = [
      { id: 0, path: "/system/lib64/libc.so", symbols: ["memcpy", "__start_thread"] },
      { id: 1, path: "[kernel.kallsyms]", symbols: ["el0_svc"] },
    ];
    const chain = [
      { file: 1, symbol: 0 },
      { file: 0, symbol: -1 },
      { file: 0, symbol: 0, execution: 2 },
      { file: 0, symbol: 1 },
    ];
    const samples = Array.from({ length: 12 }, (_, i) => ({
      time: 1_000_000_000n + BigInt(i) * 250_000n,
      tid: 10 + (i % 3),
      event: i % 2,
      count: 250_000 + i,
      chain: chain.slice(i % 4),
      unwindError: i === 5 ? 3 : undefined,
    }));
    const threads = [
      { tid: 10, pid: 10, name: "app" },
      { tid: 11, pid: 10, name: "worker" },
    ];
    return [
      writeSimpleperf({
        meta: { events: ["cpu-clock", "cpu-cycles"], app: "com.example", offcpu: true },
        samples,
        threads,
        files,
        lost: [12, 1],
      }),
      writeSimpleperf({ samples: samples.slice(0, 3), files, end: false }),
    ];
  }
  // Recorded and hand-written fixtures of the sampled-stack formats (perf 6.1 -F forms, node JIT
  // frames, evented speedscope).
  const fixtureDir = {
    "perf-script": "perf-script",
    speedscope: "speedscope",
    "dtrace-stacks": "dtrace-stacks",
  }[parser];
  if (fixtureDir) {
    const dir = join(REPO, "fixtures", fixtureDir);
    return readdirSync(dir)
      .filter((n) => !n.endsWith(".md"))
      .sort()
      .map((n) => new Uint8Array(readFileSync(join(dir, n))));
  }
  if (parser !== "perfetto") return [];
  const print = (timestamp: number, tid: number, buf: string) => ({
    timestamp,
    pid: tid,
    print: { buf },
  });
  const packets = [
    {
      process_tree: {
        processes: [{ pid: 7, cmdline: ["app"] }],
        threads: [{ tid: 8, tgid: 7, name: "worker" }],
      },
    },
    {
      timestamp: 5,
      process_stats: { processes: [{ pid: 7, vm_rss_kb: 10, oom_score_adj: -100 }] },
    },
    {
      ftrace_events: {
        cpu: 0,
        event: [
          print(10, 8, "B|7|a\n"),
          print(20, 8, "C|7|n|4\n"),
          print(25, 8, "I|7|i\n"),
          print(30, 8, "E|7\n"),
          print(40, 8, "S|7|x|1\n"),
        ],
      },
    },
    {
      trusted_packet_sequence_id: 3,
      ftrace_events: {
        cpu: 1,
        ftrace_clock: 2,
        ftrace_timestamp: 90,
        boot_timestamp: 1090,
        event: [
          print(50, 8, "F|7|x|1\n"),
          print(60, 8, "G|7|net|get|2\n"),
          print(70, 8, "N|7|net|retry\n"),
          print(80, 8, "H|7|net|2\n"),
        ],
      },
    },
  ];
  // A heapprofd dump over two packets, with Android Q's per-packet tables.
  const heap = [
    {
      trusted_packet_sequence_id: 4,
      profile_packet: {
        strings: [
          { iid: 1, str: Buffer.from("main") },
          { iid: 2, str: Buffer.from("grow") },
        ],
        frames: [
          { iid: 1, function_name_id: 1 },
          { iid: 2, function_name_id: 2 },
        ],
        callstacks: [{ iid: 3, frame_ids: [1, 2] }],
        process_dumps: [
          {
            pid: 7,
            heap_name: "malloc",
            samples: [
              {
                callstack_id: 3,
                self_allocated: 64,
                self_freed: 16,
                alloc_count: 2,
                free_count: 1,
              },
            ],
          },
        ],
        continued: true,
      },
    },
    {
      trusted_packet_sequence_id: 4,
      profile_packet: {
        process_dumps: [
          { pid: 7, heap_name: "malloc", samples: [{ callstack_id: 3, self_max: 48 }] },
        ],
        continued: false,
      },
    },
  ];
  const encode = (list: object[]) => Trace.encode(Trace.fromObject({ packet: list })).finish();
  return [
    encode(packets),
    encode([{ compressed_packets: deflateSync(encode(packets)) }]),
    encode(heap),
  ];
}

const PARSERS: [string, string[]][] = [
  ["chrome-trace", ["chrome-trace"]],
  ["v8-cpuprofile", ["cpuprofile"]],
  ["v8-heapprofile", ["heapprofile"]],
  ["otlp-json", ["otlp-json"]],
  ["otlp-protobuf", ["otlp-proto"]],
  ["pprof", ["pprof"]],
  ["perfetto", ["perfetto"]],
  ["perf-script", ["perf-script"]],
  ["simpleperf-proto", ["simpleperf"]],
  ["collapsed-stacks", ["collapsed-stacks"]],
  ["speedscope", ["speedscope"]],
  ["callgrind", ["callgrind"]],
  ["gecko", ["gecko", "fxprofiler-processed"]],
  ["massif", ["massif"]],
  ["dhat", ["dhat"]],
  ["dtrace-stacks", ["dtrace-stacks"]],
  ["pytest-reportlog", ["pytest-reportlog"]],
  ["junit-xml", ["junit-xml"]],
  ["coverage-py", ["coverage-py"]],
  ["coverage-json", ["coverage-py-json"]],
  ["cobertura-xml", ["coverage-xml"]],
  ["nsys-sqlite", []],
  ["nvbench", []],
  ["pytorch-et", ["pytorch-et"]],
];

async function runOne(
  adapter: ProducerAdapter,
  bytes: Uint8Array,
  chunkSize: number,
): Promise<string> {
  try {
    // Whole-payload adapters (parsed JSON, no streaming path) are fuzzed through extract.
    if (!adapter.extractStream) {
      await extracted(adapter, {
        bytes,
        displayName: "fuzz",
        limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 200_000 },
      });
      return "ok";
    }
    await adapter.extractStream({
      chunks: chunked(bytes, chunkSize),
      displayName: "fuzz",
      limits: { ...DEFAULT_ADAPTER_LIMITS, maxEvents: 200_000 },
      sink: { writeBatch: async () => {} },
    });
    return "ok";
  } catch (error) {
    if (error instanceof FlameoxError && TYPED.has(error.code)) return error.code;
    throw error;
  }
}

describe(
  `parser fuzz lane (${FULL ? "full: 10,000" : "default: 120"} mutated inputs per parser; ` +
    `FLAMEOX_FUZZ=full for 10,000)`,
  () => {
    for (const [name, formats] of PARSERS) {
      test(
        `${name}: only typed errors, no hang, memory flat`,
        async () => {
          const adapter = adapterByName(name)!;
          const inputs = [...seeds(formats), ...generatedSeeds(name)];
          expect(inputs.length).toBeGreaterThan(0);
          const outcomes = new Map<string, number>();
          Bun.gc(true);
          const rssBefore = process.memoryUsage().rss;
          let i = 0;
          for (const { name: mutation, bytes } of mutatedInputs(
            inputs,
            PER_PARSER,
            0x5eed + name.length,
          )) {
            const started = performance.now();
            let outcome: string;
            try {
              outcome = await runOne(adapter, bytes, [1 << 20, 4099, 61][i++ % 3]!);
            } catch (error) {
              throw new Error(
                `${name}: input ${i} (${mutation}, ${bytes.length} bytes) ` +
                  `threw ${(error as Error)?.stack ?? error}`,
              );
            }
            expect(performance.now() - started).toBeLessThan(MAX_INPUT_MS);
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          }
          Bun.gc(true);
          const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
          console.log(
            `${name}: ${PER_PARSER} inputs ` +
              `→ ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(", ")}; ` +
              `RSS ${grownMb >= 0 ? "+" : ""}${grownMb.toFixed(0)} MB`,
          );
          // WASM instances are dropped after each input; RSS may wobble, it must not climb with the
          // input count.
          expect(grownMb).toBeLessThan(FULL ? 400 : 300);
        },
        FULL ? 3_600_000 : 120_000,
      );
    }
  },
);
