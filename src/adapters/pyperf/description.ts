/** What the `pyperf` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectPyperf({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{") || !/"benchmarks"\s*:/.test(text)) return 0;
  // pytest-benchmark, Google Benchmark and NVBench also have "benchmarks"; only pyperf has
  // runs whose warmups are [loops, value] pairs or whose values are bare numbers.
  if (/"machine_info"\s*:|"run_type"\s*:|"real_time"\s*:|"devices"\s*:|"nvbench"/.test(text))
    return 0;
  if (!/"runs"\s*:/.test(text)) return 0;
  return /"warmups"\s*:\s*\[\s*\[/.test(text) || /"values"\s*:\s*\[\s*-?[\d.]/.test(text)
    ? 0.9
    : 0.2;
}

export const pyperfDescription: AdapterDescription = {
  name: "pyperf",
  version: "1.1.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectPyperf,
};
