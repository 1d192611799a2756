/**
 * The producer adapters flameox knows, and format detection over them. Detection only
 * looks at the head of the payload; the adapter with the highest confidence wins.
 */
import type { DetectInput, ProducerAdapter } from "./adapter.ts";
import { chromeTraceAdapter } from "./chrome-trace/adapter.ts";
import { v8CpuProfileAdapter } from "./v8-cpuprofile/adapter.ts";
import { v8HeapProfileAdapter } from "./v8-heapprofile/adapter.ts";
import { otlpJsonAdapter } from "./otlp/json-adapter.ts";
import { otlpProtoAdapter } from "./otlp/proto-adapter.ts";
import { pprofAdapter } from "./pprof/adapter.ts";
import { pprofLegacyAdapter } from "./pprof-legacy/adapter.ts";
import { perfettoAdapter } from "./perfetto/adapter.ts";
import { perfScriptAdapter } from "./perf-script/adapter.ts";
import { simpleperfProtoAdapter } from "./simpleperf-proto/adapter.ts";
import { collapsedStacksAdapter } from "./collapsed-stacks/adapter.ts";
import { speedscopeAdapter } from "./speedscope/adapter.ts";
import { callgrindAdapter } from "./callgrind/adapter.ts";
import { geckoAdapter } from "./gecko/adapter.ts";
import { massifAdapter } from "./massif/adapter.ts";
import { dhatAdapter } from "./dhat/adapter.ts";
import { dtraceStacksAdapter } from "./dtrace-stacks/adapter.ts";
import { benchmarkSamplesAdapter } from "./benchmark-samples/adapter.ts";
import { gbenchAdapter } from "./gbench/adapter.ts";
import { hyperfineAdapter } from "./hyperfine/adapter.ts";
import { pyperfAdapter } from "./pyperf/adapter.ts";
import { pytestBenchmarkAdapter } from "./pytest-benchmark/adapter.ts";
import { nvbenchAdapter } from "./nvbench/adapter.ts";
import { nvbenchSamplesAdapter } from "./nvbench/sidecar-samples.ts";
import { pytestReportlogAdapter } from "./pytest-reportlog/adapter.ts";
import { junitXmlAdapter } from "./junit-xml/adapter.ts";
import { coveragePyAdapter } from "./coverage-py/adapter.ts";
import { coverageJsonAdapter } from "./coverage-json/adapter.ts";
import { coberturaXmlAdapter } from "./cobertura-xml/adapter.ts";
import { nsysSqliteAdapter } from "./nsys-sqlite/adapter.ts";
import { nsysStatsSummaryAdapter, nsysStatsTraceAdapter } from "./nsys-stats-csv/adapters.ts";
import { pytorchEtAdapter } from "./pytorch-et/adapter.ts";

export const ADAPTERS: ProducerAdapter[] = [
  v8CpuProfileAdapter,
  chromeTraceAdapter,
  // Streaming WASM parsers.
  v8HeapProfileAdapter,
  otlpJsonAdapter,
  otlpProtoAdapter,
  pprofAdapter,
  pprofLegacyAdapter,
  perfettoAdapter,
  // Sampled-stack text and JSON formats.
  perfScriptAdapter,
  simpleperfProtoAdapter,
  collapsedStacksAdapter,
  speedscopeAdapter,
  callgrindAdapter,
  geckoAdapter,
  massifAdapter,
  dhatAdapter,
  dtraceStacksAdapter,
  // Benchmark samples: each raw sample lands in `measurements`.
  benchmarkSamplesAdapter,
  hyperfineAdapter,
  pyperfAdapter,
  gbenchAdapter,
  pytestBenchmarkAdapter,
  nvbenchAdapter,
  // Only as a companion an NVBench JSON declares: never detected.
  nvbenchSamplesAdapter,
  // Test runner reports: rows of `test_results`.
  pytestReportlogAdapter,
  junitXmlAdapter,
  // Execution coverage: rows of `coverage_lines`.
  coveragePyAdapter,
  coverageJsonAdapter,
  coberturaXmlAdapter,
  // Accelerator traces: rows of `trace_events` on device/stream and thread tracks.
  nsysSqliteAdapter,
  nsysStatsTraceAdapter,
  // Aggregates per name from `nsys stats` summary reports: rows of `measurements`.
  nsysStatsSummaryAdapter,
  // Operator trees without times: frames, edges and stacks counted in `calls`.
  pytorchEtAdapter,
];

export function detectAdapter(input: DetectInput): ProducerAdapter | null {
  let best: ProducerAdapter | null = null;
  let bestConfidence = 0;
  for (const adapter of ADAPTERS) {
    const confidence = adapter.detect(input);
    if (confidence > bestConfidence) {
      best = adapter;
      bestConfidence = confidence;
    }
  }
  return best;
}

export function adapterByName(name: string): ProducerAdapter | null {
  return ADAPTERS.find((adapter) => adapter.name === name) ?? null;
}
