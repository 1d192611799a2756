/** What the `pytest-benchmark` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectPytestBenchmark({ head }: DetectInput): number {
  const text = head.trimStart();
  return text.startsWith("{") && /"machine_info"\s*:/.test(text) && /"benchmarks"\s*:/.test(text)
    ? 0.95
    : 0;
}

export const pytestBenchmarkDescription: AdapterDescription = {
  name: "pytest-benchmark",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectPytestBenchmark,
};
