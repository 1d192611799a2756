/**
 * What the `nvbench` adapter and its sidecar adapter `nvbench-samples` declare, and their
 * detection, without their parsers.
 */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectNvbench({ head }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  if (/"nvbench"\s*:\s*\{/.test(text) && /"(benchmarks|devices)"\s*:/.test(text)) return 0.95;
  return /"summaries"\s*:/.test(text) && /"axis_values"\s*:/.test(text) ? 0.8 : 0;
}

export const nvbenchDescription: AdapterDescription = {
  name: "nvbench",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/json",
  detect: detectNvbench,
};

export const nvbenchSamplesDescription: AdapterDescription = {
  name: "nvbench-samples",
  version: "1.0.0",
  tables: ["measurements"],
  artifactKind: "benchmark_samples",
  mediaType: "application/octet-stream",
  // A sidecar says nothing about itself: only the import names it, for a declared sidecar.
  detect: () => 0,
};
