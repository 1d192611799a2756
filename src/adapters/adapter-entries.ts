/**
 * The producer adapters flameox knows, as entries: each format's description and detection
 * (a light module per format) and a loader for its parser. Format detection only looks at
 * the head of the payload; the entry with the highest confidence wins.
 *
 * The parse worker detects over these and then loads the one parser it needs. Loading
 * every adapter's parsing code, as the registry does, took ~65 ms of each import's worker
 * start (a 1.3 MB cpuprofile: worker start 193 → 126 ms with only its own adapter loaded),
 * a sixth of the whole import of a small file. The order is the registry's: on equal
 * confidence the earlier entry wins.
 */
import type { AdapterDescription, AdapterEntry, DetectInput, ProducerAdapter } from "./adapter.ts";
import { benchmarkSamplesDescription } from "./benchmark-samples/description.ts";
import { callgrindDescription } from "./callgrind/description.ts";
import { chromeTraceDescription } from "./chrome-trace/description.ts";
import { coberturaXmlDescription } from "./cobertura-xml/description.ts";
import { collapsedStacksDescription } from "./collapsed-stacks/description.ts";
import { coverageJsonDescription } from "./coverage-json/description.ts";
import { coveragePyDescription } from "./coverage-py/description.ts";
import { dhatDescription } from "./dhat/description.ts";
import { dtraceStacksDescription } from "./dtrace-stacks/description.ts";
import { gbenchDescription } from "./gbench/description.ts";
import { geckoDescription } from "./gecko/description.ts";
import { hyperfineDescription } from "./hyperfine/description.ts";
import { junitXmlDescription } from "./junit-xml/description.ts";
import { massifDescription } from "./massif/description.ts";
import { nsysSqliteDescription } from "./nsys-sqlite/description.ts";
import {
  nsysStatsSummaryDescription,
  nsysStatsTraceDescription,
} from "./nsys-stats-csv/description.ts";
import { nvbenchDescription, nvbenchSamplesDescription } from "./nvbench/description.ts";
import { otlpJsonDescription, otlpProtoDescription } from "./otlp/description.ts";
import { perfScriptDescription } from "./perf-script/description.ts";
import { perfettoDescription } from "./perfetto/description.ts";
import { pprofLegacyDescription } from "./pprof-legacy/description.ts";
import { pprofDescription } from "./pprof/description.ts";
import { pyperfDescription } from "./pyperf/description.ts";
import { pytestBenchmarkDescription } from "./pytest-benchmark/description.ts";
import { pytestReportlogDescription } from "./pytest-reportlog/description.ts";
import { pytorchEtDescription } from "./pytorch-et/description.ts";
import { simpleperfProtoDescription } from "./simpleperf-proto/description.ts";
import { speedscopeDescription } from "./speedscope/description.ts";
import { v8CpuProfileDescription } from "./v8-cpuprofile/description.ts";
import { v8HeapProfileDescription } from "./v8-heapprofile/description.ts";

function entry(
  description: AdapterDescription,
  load: () => Promise<ProducerAdapter>,
): AdapterEntry {
  return { ...description, load };
}

export const ADAPTER_ENTRIES: readonly AdapterEntry[] = [
  entry(
    v8CpuProfileDescription,
    async () => (await import("./v8-cpuprofile/adapter.ts")).v8CpuProfileAdapter,
  ),
  entry(
    chromeTraceDescription,
    async () => (await import("./chrome-trace/adapter.ts")).chromeTraceAdapter,
  ),
  // Streaming WASM parsers.
  entry(
    v8HeapProfileDescription,
    async () => (await import("./v8-heapprofile/adapter.ts")).v8HeapProfileAdapter,
  ),
  entry(otlpJsonDescription, async () => (await import("./otlp/json-adapter.ts")).otlpJsonAdapter),
  entry(
    otlpProtoDescription,
    async () => (await import("./otlp/proto-adapter.ts")).otlpProtoAdapter,
  ),
  entry(pprofDescription, async () => (await import("./pprof/adapter.ts")).pprofAdapter),
  entry(
    pprofLegacyDescription,
    async () => (await import("./pprof-legacy/adapter.ts")).pprofLegacyAdapter,
  ),
  entry(perfettoDescription, async () => (await import("./perfetto/adapter.ts")).perfettoAdapter),
  // Sampled-stack text and JSON formats.
  entry(
    perfScriptDescription,
    async () => (await import("./perf-script/adapter.ts")).perfScriptAdapter,
  ),
  entry(
    simpleperfProtoDescription,
    async () => (await import("./simpleperf-proto/adapter.ts")).simpleperfProtoAdapter,
  ),
  entry(
    collapsedStacksDescription,
    async () => (await import("./collapsed-stacks/adapter.ts")).collapsedStacksAdapter,
  ),
  entry(
    speedscopeDescription,
    async () => (await import("./speedscope/adapter.ts")).speedscopeAdapter,
  ),
  entry(
    callgrindDescription,
    async () => (await import("./callgrind/adapter.ts")).callgrindAdapter,
  ),
  entry(geckoDescription, async () => (await import("./gecko/adapter.ts")).geckoAdapter),
  entry(massifDescription, async () => (await import("./massif/adapter.ts")).massifAdapter),
  entry(dhatDescription, async () => (await import("./dhat/adapter.ts")).dhatAdapter),
  entry(
    dtraceStacksDescription,
    async () => (await import("./dtrace-stacks/adapter.ts")).dtraceStacksAdapter,
  ),
  // Benchmark samples: each raw sample lands in `measurements`.
  entry(
    benchmarkSamplesDescription,
    async () => (await import("./benchmark-samples/adapter.ts")).benchmarkSamplesAdapter,
  ),
  entry(
    hyperfineDescription,
    async () => (await import("./hyperfine/adapter.ts")).hyperfineAdapter,
  ),
  entry(pyperfDescription, async () => (await import("./pyperf/adapter.ts")).pyperfAdapter),
  entry(gbenchDescription, async () => (await import("./gbench/adapter.ts")).gbenchAdapter),
  entry(
    pytestBenchmarkDescription,
    async () => (await import("./pytest-benchmark/adapter.ts")).pytestBenchmarkAdapter,
  ),
  entry(nvbenchDescription, async () => (await import("./nvbench/adapter.ts")).nvbenchAdapter),
  // Only as a companion an NVBench JSON declares: never detected.
  entry(
    nvbenchSamplesDescription,
    async () => (await import("./nvbench/sidecar-samples.ts")).nvbenchSamplesAdapter,
  ),
  // Test runner reports: rows of `test_results`.
  entry(
    pytestReportlogDescription,
    async () => (await import("./pytest-reportlog/adapter.ts")).pytestReportlogAdapter,
  ),
  entry(junitXmlDescription, async () => (await import("./junit-xml/adapter.ts")).junitXmlAdapter),
  // Execution coverage: rows of `coverage_lines`.
  entry(
    coveragePyDescription,
    async () => (await import("./coverage-py/adapter.ts")).coveragePyAdapter,
  ),
  entry(
    coverageJsonDescription,
    async () => (await import("./coverage-json/adapter.ts")).coverageJsonAdapter,
  ),
  entry(
    coberturaXmlDescription,
    async () => (await import("./cobertura-xml/adapter.ts")).coberturaXmlAdapter,
  ),
  // Accelerator traces: rows of `trace_events` on device/stream and thread tracks.
  entry(
    nsysSqliteDescription,
    async () => (await import("./nsys-sqlite/adapter.ts")).nsysSqliteAdapter,
  ),
  entry(
    nsysStatsTraceDescription,
    async () => (await import("./nsys-stats-csv/adapters.ts")).nsysStatsTraceAdapter,
  ),
  // Aggregates per name from `nsys stats` summary reports: rows of `measurements`.
  entry(
    nsysStatsSummaryDescription,
    async () => (await import("./nsys-stats-csv/adapters.ts")).nsysStatsSummaryAdapter,
  ),
  // Operator trees without times: frames, edges and stacks counted in `calls`.
  entry(
    pytorchEtDescription,
    async () => (await import("./pytorch-et/adapter.ts")).pytorchEtAdapter,
  ),
];

/** The candidate with the highest confidence for `input` (the first on a tie), or null. */
export function mostConfident<T extends AdapterDescription>(
  candidates: readonly T[],
  input: DetectInput,
): T | null {
  let best: T | null = null;
  let bestConfidence = 0;
  for (const candidate of candidates) {
    const confidence = candidate.detect(input);
    if (confidence > bestConfidence) {
      best = candidate;
      bestConfidence = confidence;
    }
  }
  return best;
}

export function entryByName(name: string): AdapterEntry | null {
  return ADAPTER_ENTRIES.find((e) => e.name === name) ?? null;
}
