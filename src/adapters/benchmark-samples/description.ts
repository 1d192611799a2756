/** What the `benchmark-samples` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

export const BENCHMARK_SAMPLES_SCHEMA = "flameox.benchmark-samples.v1";

function detectBenchmarkSamples({ head }: DetectInput): number {
  return head.includes(`"${BENCHMARK_SAMPLES_SCHEMA}"`) ? 0.99 : 0;
}

export const benchmarkSamplesDescription: AdapterDescription = {
  name: "benchmark-samples",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectBenchmarkSamples,
};
